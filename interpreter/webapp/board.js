// The board as SVG, from game.board (locations with their positions, paths) and a game.screen (the pieces).
const NS = "http://www.w3.org/2000/svg";
const W = 1000, H = 680, PADX = 80, PADY = 60, R = 30;
const TAG_COLOURS = ["#3b6fb6", "#a4508b", "#2f8f6b", "#b8741a", "#6a5acd", "#8b4513"];

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) e.setAttribute(k, typeof v === "number" ? Math.round(v * 10) / 10 : v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

export function place(loc) {
  return [PADX + loc.x * (W - 2 * PADX), PADY + loc.y * (H - 2 * PADY - 20)];
}

function faces(list) {
  if (!list.length) return "";
  const s = [...list].sort((a, b) => a - b);
  return s.length >= 3 && s.at(-1) - s[0] === s.length - 1 ? `${s[0]}–${s.at(-1)}` : s.join(",");
}

export function drawBoard(root, board, sc, { legal = {}, path = [], onPick = null } = {}) {
  root.replaceChildren();
  const at = Object.fromEntries(board.locations.map((l) => [l.id, place(l)]));
  const tags = [...new Set(board.paths.flatMap((p) => p.tags))].sort();
  const colour = (t) => TAG_COLOURS[tags.indexOf(t) % TAG_COLOURS.length];
  const opened = new Set(sc.opened || []);
  const gPaths = svg("g", { class: "paths" });
  board.paths.forEach((p, k) => {
    const [ax, ay] = at[p.a], [bx, by] = at[p.b];
    const shut = p.closed && !opened.has(k);
    const g = svg("g", { class: `path${shut ? " closed" : ""}${p.tags.length ? " tagged" : ""}`, "data-a": p.a, "data-b": p.b,
      "data-tags": p.tags.join(" ") || undefined });
    g.append(svg("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: p.tags.length ? colour(p.tags[0]) : "#777",
      "stroke-width": p.tags.length ? 4 : 3, "stroke-dasharray": shut ? "8 6" : undefined }));
    const len = Math.hypot(bx - ax, by - ay) || 1;
    const off = Math.min(0.42, (R + 16) / len);
    const label = (f, t, anchorX, anchorY) => {
      if (!f) return;
      const x = anchorX + (bx - ax) * t, y = anchorY + (by - ay) * t;
      g.append(svg("rect", { x: x - 4 - f.length * 3.6, y: y - 9, width: 8 + f.length * 7.2, height: 16, rx: 4, class: "face-bg" }));
      g.append(svg("text", { x, y: y + 4, class: "face", "text-anchor": "middle" }, f));
    };
    label(faces(p.a_panic), off, ax, ay);
    label(faces(p.b_panic), -off, bx, by);
    if (p.tags.length || shut) {
      g.append(svg("text", { x: (ax + bx) / 2, y: (ay + by) / 2 - 6, class: "path-tag", "text-anchor": "middle",
        fill: p.tags.length ? colour(p.tags[0]) : "#777" }, [...p.tags, shut ? "closed" : ""].filter(Boolean).join(" · ")));
    }
    gPaths.append(g);
  });
  root.append(gPaths);
  // the killer's path this step, drawn over the paths
  if (path.length > 1) {
    const pts = path.map((id) => at[id]).filter(Boolean).map(([x, y]) => `${x},${y}`).join(" ");
    root.append(svg("polyline", { points: pts, class: "intent-path", fill: "none" }));
  }
  const here = Object.fromEntries((sc.locations || []).map((l) => [l.id, l]));
  const gLocs = svg("g", { class: "locations" });
  for (const loc of board.locations) {
    const [x, y] = at[loc.id];
    const h = here[loc.id] || { victims: 0, killers: [], minions: [], tokens: [], pieces: [] };
    const keys = legal[loc.id] || [];
    const g = svg("g", { class: `loc${keys.length ? " legal" : ""}${loc.exit ? " exit" : ""}${loc.search ? " search" : ""}`,
      "data-loc": loc.id, transform: `translate(${x},${y})`, tabindex: keys.length ? 0 : undefined });
    g.append(svg("title", {}, [loc.name, loc.exit ? "exit" : "", loc.search ? "search" : "", ...loc.tags, h.text || "", ...keys].filter(Boolean).join(" · ")));
    if (loc.exit) g.append(svg("circle", { r: R + 6, class: "exit-ring" }));
    g.append(svg("circle", { r: R, class: "spot" }));
    g.append(svg("text", { y: R + 18, class: "name", "text-anchor": "middle" }, loc.name));
    if (loc.tags.length) g.append(svg("text", { y: R + 32, class: "loc-tags", "text-anchor": "middle" }, loc.tags.join(" ")));
    if (loc.search) {
      const left = (sc.piles || {})[loc.id];
      g.append(svg("rect", { x: R - 10, y: -R - 6, width: 22, height: 18, rx: 3, class: "pile" }));
      g.append(svg("text", { x: R + 1, y: -R + 8, class: "pile-n", "text-anchor": "middle" }, left === undefined ? "S" : String(left)));
    }
    // the pieces standing here
    if (sc.fg && sc.fg.location === loc.id) {
      g.append(svg("circle", { cx: -12, cy: -8, r: 11, class: "piece fg" }));
      g.append(svg("text", { x: -12, y: -4, class: "piece-t", "text-anchor": "middle" }, "FG"));
    }
    (h.killers || []).forEach((k, i) => {
      const kx = 12 + i * 8;
      g.append(svg("rect", { x: kx - 11, y: -19, width: 22, height: 22, rx: 3, class: "piece killer" }, undefined));
      g.append(svg("text", { x: kx, y: -4, class: "piece-t", "text-anchor": "middle" }, "K"));
      g.lastChild.append(svg("title", {}, k));
    });
    if (h.victims) {
      g.append(svg("circle", { cx: -10, cy: 14, r: 9, class: "piece victim" }));
      g.append(svg("text", { x: -10, y: 18, class: "piece-t dark", "text-anchor": "middle" }, String(h.victims)));
    }
    const mins = (h.minions || []).reduce((n, m) => n + m.count, 0);
    if (mins) {
      g.append(svg("rect", { x: 2, y: 5, width: 18, height: 18, rx: 9, class: "piece minion" }));
      g.append(svg("text", { x: 11, y: 18, class: "piece-t", "text-anchor": "middle" }, String(mins)));
    }
    const extra = [...(h.tokens || []), ...(h.pieces || [])];
    if (extra.length) g.append(svg("text", { y: -R - 10, class: "tokens", "text-anchor": "middle" }, extra.join(", ")));
    if (keys.length && onPick) {
      g.addEventListener("click", () => onPick(loc.id));
      g.addEventListener("keydown", (e) => { if (e.key === "Enter") onPick(loc.id); });
    }
    gLocs.append(g);
  }
  root.append(gLocs);
}
