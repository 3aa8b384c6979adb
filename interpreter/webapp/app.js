// lastbreath web: the page. It speaks the JSON-RPC protocol of `lastbreath serve` (docs/protocol.md)
// over a WebSocket at /rpc, and draws whatever the content says: no killer, scenario or card is named here.
import { drawBoard } from "/app/board.js";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k.nodeType ? k : String(k));
  return e;
};

// --- the connection -------------------------------------------------------------------------------
let ws, nextId = 1;
const pending = new Map();
const ready = new Promise((resolve) => {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/rpc`);
  ws.onopen = () => { $("conn").textContent = "connected"; resolve(); };
  ws.onclose = () => { $("conn").textContent = "disconnected: reload the page"; };
  ws.onmessage = (m) => {
    const got = JSON.parse(m.data);
    for (const reply of Array.isArray(got) ? got : [got]) {
      const p = pending.get(reply.id);
      if (!p) continue;
      pending.delete(reply.id);
      if (reply.error) p.reject(Object.assign(new Error(reply.error.message), { rpc: reply.error }));
      else p.resolve(reply.result);
    }
  };
});
export async function rpc(method, params = {}) {
  await ready;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
}
// several requests in one message (a JSON-RPC batch): one round trip; each reply is a result or an Error
export async function rpcBatch(calls) {
  await ready;
  const ids = calls.map(() => nextId++);
  const got = ids.map((id) => new Promise((resolve) => pending.set(id, {
    resolve, reject: (err) => resolve(err) })));
  ws.send(JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: "2.0", id: ids[i], method, params }))));
  return Promise.all(got);
}
window.lastbreath = { rpc, rpcBatch };

function showError(err) {
  const box = $("error");
  box.hidden = !err;
  box.textContent = err ? String(err.message || err) : "";
}
let busy = 0;
async function guarded(fn) {
  busy++;
  document.body.dataset.busy = "1";
  try { showError(null); return await fn(); } catch (err) { showError(err); } finally {
    if (--busy === 0) delete document.body.dataset.busy;
  }
}

// --- tabs ----------------------------------------------------------------------------------------------
function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".page")) s.classList.toggle("on", s.id === `page-${name}`);
  if (name === "design") design.start();
  if (name === "companion") companion.start();
}
for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));

// --- the game ----------------------------------------------------------------------------------------------
const game = { id: null, board: null, view: null, at: null, made: 0, logFrom: 0 };
let content = null;

function fill(select, rows, chosen) {
  select.replaceChildren(...rows.map((r) => el("option", { value: r.id ?? r, selected: (r.id ?? r) === chosen }, r.name ?? r)));
}

async function loadContent() {
  content = await rpc("content.list");
  fill($("ng-killer"), content.killers);
  fill($("ng-scenario"), content.scenarios);
  fill($("ng-fg"), content.final_girls);
  fill($("ng-difficulty"), content.difficulties, "normal");
  fill($("ng-modules"), content.modules);
  $("ng-modules").size = Math.min(4, Math.max(1, content.modules.length));
}

async function newGame(params) {
  if (game.id) rpc("game.close", { game: game.id }).catch(() => {});
  const view = await rpc("game.new", params);
  await opened(view);
}

async function opened(view) {
  game.id = view.game;
  game.board = await rpc("game.board", { game: game.id });
  game.logFrom = 0;
  $("log").replaceChildren();
  game.at = null;
  await show(view);
}

function setupParams() {
  const seed = $("ng-seed").value.trim();
  const p = { killer: $("ng-killer").value, scenario: $("ng-scenario").value, final_girl: $("ng-fg").value,
    difficulty: $("ng-difficulty").value, modules: [...$("ng-modules").selectedOptions].map((o) => o.value) };
  if (seed !== "") p.seed = Number(seed);
  return p;
}

async function choose(key) {
  if (!game.id || game.at !== null) return;
  await show(null, ["game.apply", { game: game.id, key }]);
}

// what the page shows: the screen of the current state (or of a past one, in the debug panel), and
// the log since it was last asked; with ``first``, a request carried out before them in the same batch
async function show(view, first) {
  if (view) game.view = view;
  const at = game.at;
  const calls = [["game.screen", at === null ? { game: game.id } : { game: game.id, at }],
    ["game.log", { game: game.id, since: game.logFrom }]];
  if (first) calls.unshift(first);
  const got = await rpcBatch(calls);
  if (first) {
    if (got[0] instanceof Error) showError(got[0]); else game.view = got[0];
    got.shift();
  }
  for (const r of got) if (r instanceof Error) throw r;
  const [sc, log] = got;
  game.made = sc.choices;
  game.screen = sc;
  renderScreen(sc, at === null);
  updateLog(log);
  if ($("debug").open) await renderTree();
  document.body.dataset.choices = String(sc.choices);
  document.body.dataset.over = sc.over ? "1" : "0";
}

function renderScreen(sc, live) {
  const names = Object.fromEntries(game.board.locations.map((l) => [l.id, l.name]));
  $("where").textContent = `${game.board.scenario.name} · round ${sc.round} · ${sc.phase} phase · ` +
    `${sc.choices} choice${sc.choices === 1 ? "" : "s"} made` + (live ? "" : ` · looking at choice ${sc.at}`);
  const path = sc.steps.map((s) => s.path).filter((p) => p.length).at(-1) || [];
  drawBoard($("board"), game.board, sc, { legal: live ? sc.at_location : {}, path, onPick: (loc) => {
    const keys = (sc.at_location[loc] || []);
    if (keys.length === 1) guarded(() => choose(keys[0]));
    else for (const b of document.querySelectorAll("#options button")) b.classList.toggle("hint", keys.includes(b.dataset.key));
  } });
  renderTracks(sc);
  // the choice
  const opts = $("options");
  $("prompt").textContent = sc.choice ? sc.choice.prompt : (sc.over ? "The game is over." : "");
  opts.replaceChildren(...(sc.choice ? sc.choice.options : []).map((o) => {
    const note = sc.notes[o.key];
    return el("button", { class: "opt", "data-key": o.key, id: `opt-${o.key}`, disabled: !live, title: note || o.key,
      onclick: () => guarded(() => choose(o.key)) }, o.label, note ? el("small", {}, note) : null);
  }));
  const res = $("result");
  res.hidden = !sc.over;
  res.textContent = sc.over ? (sc.result === "fg" ? "The Final Girl survives." : "The killer wins.") +
    (game.view && game.view.end_reason ? ` (${game.view.end_reason})` : "") : "";
  // the killer phase, step by step: the target, why and its path before each move
  $("steps").replaceChildren(...sc.steps.filter((s) => s.note.length).map((s) => el("div", { class: "step" },
    el("div", { class: "intent" }, ...s.note.map((line) => el("div", {}, line))),
    el("ul", {}, ...s.events.map((e) => eventItem(e))))));
  const plain = sc.steps.filter((s) => !s.note.length).flatMap((s) => s.events);
  $("events").replaceChildren(el("ul", {}, ...plain.map((e) => eventItem(e))));
  // cards
  $("hand").replaceChildren(...sc.hand.map((c) => card(c.name + (c.copies > 1 ? ` ×${c.copies}` : ""), c.text, "card", c.id)));
  if (!sc.hand.length) $("hand").append(el("span", { class: "dim" }, "no cards"));
  $("items").replaceChildren(...sc.items.map((c) => card(`${c.name} (${c.where})`, [c.text], "item")));
  if (!sc.items.length) $("items").append(el("span", { class: "dim" }, "none"));
  $("market").replaceChildren(...sc.market.map((c) => card(c.name + (c.copies > 1 ? ` ×${c.copies}` : ""), c.text, "card", c.id)));
  $("market-box").open = sc.phase === "planning" || $("market-box").open;
  const rev = [];
  for (const [label, r] of [["Finale", sc.finale], ["Dark power", sc.dark_power]]) {
    if (r && !r.hidden) rev.push(card(`${label}: ${r.name}`, r.text.slice(1), "reveal"));
    else if (r) rev.push(el("div", { class: "card hidden" }, `${label}: face down`));
  }
  $("reveal").replaceChildren(...rev);
  $("facts").replaceChildren(...sc.facts.map((f) => el("tr", {}, el("th", {}, f.label), el("td", {}, f.text))));
  $("dbg-at").textContent = `choice ${sc.at} of ${sc.choices}` + (sc.key ? ` (after ${sc.key})` : "");
  for (const id of ["undo", "bot-one", "bot-end"]) $(id).disabled = !live || (id !== "undo" && sc.over);
}

function card(title, lines, kind, id) {
  return el("div", { class: `card ${kind}`, "data-id": id }, el("b", {}, title), ...lines.map((l) => el("div", {}, l)));
}

function eventItem(e) {
  return el("li", { class: `ev ev-${e.kind}` }, e.text, e.rule ? [" ", ruleLink(e.rule)] : null,
    e.where ? [" ", sourceLink(e.where)] : null);
}
function ruleLink(rule) {
  return el("a", { class: "rule-id", href: `/rule/${encodeURIComponent(rule)}`, onclick: (ev) => {
    ev.preventDefault();
    fetch(`/rule/${encodeURIComponent(rule)}`).then((r) => r.text()).then((t) => { const b = $("rule"); b.hidden = false; b.textContent = t; b.scrollIntoView({ block: "nearest" }); });
  } }, `[${rule}]`);
}
function sourceLink(where) {
  return el("a", { class: "source", href: "#", onclick: (ev) => {
    ev.preventDefault();
    const [file, line] = [where.slice(0, where.lastIndexOf(":")), Number(where.slice(where.lastIndexOf(":") + 1))];
    showTab("design");
    design.open(file, line);
  } }, where);
}

function renderTracks(sc) {
  const t = $("tracks");
  const row = (label, value, max, opts = {}) => {
    const cells = [];
    for (let i = opts.from ?? 0; i <= max; i++) {
      const zone = opts.zone ? opts.zone(i) : "";
      cells.push(el("span", { class: `cell${i === value ? " on" : ""}`, title: zone }, String(i), zone ? el("sub", {}, zone) : null));
    }
    return el("div", { class: "track", "data-track": label }, el("b", {}, label), ...cells);
  };
  const kids = [
    row("Health", sc.fg.health, sc.fg.max_health),
    row("Fear", sc.fear.value, sc.fear.max, { zone: (i) => (sc.fear.dice[i] ? `${sc.fear.dice[i]}d` : "") }),
    row("Time", sc.time.value, sc.time.max),
  ];
  if (sc.bloodlust) kids.push(el("div", { class: "track" }, el("b", {}, "Bloodlust"),
    `level ${sc.bloodlust.level} of ${sc.bloodlust.levels}: move ${sc.bloodlust.move}, damage ${sc.bloodlust.damage}`));
  for (const k of sc.killers) kids.push(el("div", { class: "track enemy" }, el("b", {}, k.name),
    k.alive ? `health ${k.health}${k.max_health ? "/" + k.max_health : ""}` + (k.status.length ? ` [${k.status.join(", ")}]` : "") +
      (k.active ? " (active)" : "") + (k.aside ? " (set aside)" : "") : "defeated"));
  kids.push(el("div", { class: "track" }, el("b", {}, "Victims"),
    `${sc.victims.board} on the board, ${sc.victims.rescued} rescued, ${sc.victims.dead} dead`,
    ...sc.slots.map((s, i) => el("span", { class: `slot${s.full ? " on" : ""}`, title: s.reward }, `${i + 1}`))));
  kids.push(el("div", { class: "lines" }, ...sc.lines.map((l) => el("div", {}, l))));
  t.replaceChildren(...kids);
}

// --- the log and the debug panel ------------------------------------------------------------------------------
function updateLog(got) {
  const log = $("log");
  for (const li of [...log.children]) if (Number(li.dataset.choice) >= got.since) li.remove();
  for (const e of got.events) {
    const li = eventItem(e);
    li.dataset.choice = e.choice;
    li.addEventListener("dblclick", () => { game.at = e.choice; guarded(() => show()); });
    log.append(li);
  }
  game.logFrom = got.choices + 1;
  log.scrollTop = log.scrollHeight;
}

function tree(value, key) {
  if (value === null || typeof value !== "object") return el("div", { class: "leaf" }, key !== undefined ? el("b", {}, `${key}: `) : null, JSON.stringify(value));
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const d = el("details", { class: "node" }, el("summary", {}, key !== undefined ? `${key} ` : "", el("span", { class: "dim" },
    Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`)));
  d.addEventListener("toggle", () => {
    if (d.open && d.children.length === 1) d.append(...entries.map(([k, v]) => tree(v, k)));
  }, { once: false });
  return d;
}
async function renderTree() {
  const st = await rpc("game.state", game.at === null ? { game: game.id } : { game: game.id, at: game.at });
  const root = tree(st.state, "state");
  root.open = true;
  root.append(...Object.entries(st.state).map(([k, v]) => tree(v, k)));
  $("dbg-tree").replaceChildren(root);
}
$("debug").addEventListener("toggle", () => { if ($("debug").open && game.id) guarded(renderTree); });
function stepTo(at) {
  if (!game.id) return;
  game.at = at === null || at >= game.made ? null : Math.max(0, at);
  guarded(() => show());
}
$("dbg-back").addEventListener("click", () => stepTo((game.at ?? game.made) - 1));
$("dbg-fwd").addEventListener("click", () => stepTo((game.at ?? game.made) + 1));
$("dbg-first").addEventListener("click", () => stepTo(0));
$("dbg-now").addEventListener("click", () => stepTo(null));

// --- the bar -----------------------------------------------------------------------------------------------
$("ng-start").addEventListener("click", () => guarded(() => newGame(setupParams())));
$("undo").addEventListener("click", () => guarded(() => { game.logFrom = Math.max(0, game.made - 1); return show(null, ["game.undo", { game: game.id }]); }));
$("bot-one").addEventListener("click", () => guarded(() => show(null, ["game.bot", { game: game.id, n: 1 }])));
$("bot-end").addEventListener("click", () => guarded(() => show(null, ["game.bot", { game: game.id, n: 20000 }])));
$("save").addEventListener("click", () => guarded(async () => {
  const got = await rpc("game.save", { game: game.id });
  const text = JSON.stringify(got.save);
  localStorage.setItem("lastbreath:last-save", text);
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })),
    download: `lastbreath-${got.save.game.killer}-${got.save.seed}-${got.save.choices.length}.json` });
  document.body.append(a);
  a.click();
  a.remove();
}));
$("load").addEventListener("change", () => guarded(async () => {
  const f = $("load").files[0];
  if (!f) return;
  const text = await f.text();
  $("load").value = "";
  if (game.id) rpc("game.close", { game: game.id }).catch(() => {});
  await opened(await rpc("game.load", { save: text }));
}));

// --- the table companion -----------------------------------------------------------------------------------
const companion = {
  board: null, fg: null, killer: null, victims: {}, started: false,
  async start() {
    if (this.started && this.setup === JSON.stringify(this.params())) return;
    this.started = true;
    this.setup = JSON.stringify(this.params());
    // the map of the chosen scenario, from a fresh game of the setup (closed at once)
    const v = await rpc("game.new", { ...this.params(), seed: 0 });
    this.board = await rpc("game.board", { game: v.game });
    const sc = await rpc("game.screen", { game: v.game });
    rpc("game.close", { game: v.game });
    this.fg = sc.fg.location;
    this.killer = (sc.killers.find((k) => k.alive) || {}).location || null;
    this.victims = Object.fromEntries(sc.locations.filter((l) => l.victims).map((l) => [l.id, l.victims]));
    this.draw();
  },
  params() {
    return { killer: $("ng-killer").value, scenario: $("ng-scenario").value, final_girl: $("ng-fg").value,
      difficulty: $("ng-difficulty").value };
  },
  text(phase) {
    const p = this.params();
    const lines = [`killer ${p.killer}; scenario ${p.scenario}; final_girl ${p.final_girl}; difficulty ${p.difficulty}`];
    if (this.fg) lines.push(`fg at ${this.fg}`);
    if (this.killer) lines.push(`killer at ${this.killer}`);
    const vs = Object.entries(this.victims).filter(([, n]) => n > 0);
    lines.push(vs.length ? vs.map(([l, n]) => `victims at ${l} ${n}`).join("; ") : "victims none");
    for (const [id, word] of [["cp-health", "health"], ["cp-fear", "fear"], ["cp-time", "time"], ["cp-lust", "bloodlust"]]) {
      if ($(id).value !== "") lines.push(`${word} ${Number($(id).value)}`);
    }
    if ($("cp-dice").value.trim()) lines.push(`dice ${$("cp-dice").value.trim()}`);
    if ($("cp-extra").value.trim()) lines.push($("cp-extra").value.trim());
    lines.push(`phase ${phase}`);
    return `position {\n  ${lines.join("\n  ")}\n}\n`;
  },
  draw() {
    const here = this.board.locations.map((l) => ({ id: l.id, victims: this.victims[l.id] || 0, killers: l.id === this.killer ? ["killer"] : [],
      minions: [], tokens: [], pieces: [], text: "", facts: "" }));
    const sc = { locations: here, fg: { location: this.fg }, piles: {}, opened: [] };
    const all = Object.fromEntries(this.board.locations.map((l) => [l.id, ["set"]]));
    drawBoard($("cp-board"), this.board, sc, { legal: all, path: [], onPick: (loc) => this.pick(loc) });
    $("cp-text").textContent = this.text("killer");
  },
  pick(loc) {
    const tool = document.querySelector("input[name=cp-tool]:checked").value;
    if (tool === "fg") this.fg = loc;
    else if (tool === "killer") this.killer = loc;
    else if (tool === "victim") this.victims[loc] = (this.victims[loc] || 0) + 1;
    else if (tool === "unvictim") this.victims[loc] = Math.max(0, (this.victims[loc] || 0) - 1);
    this.draw();
  },
  async ask(phase) {
    const text = this.text(phase);
    $("cp-text").textContent = text;
    let v;
    try {
      v = await rpc("game.position", { text, path: "table.position" });
    } catch (err) {
      const d = (err.rpc && err.rpc.data && err.rpc.data.diagnostics) || [];
      $("cp-answer").replaceChildren(el("div", { class: "error" }, err.message), ...d.map((x) => el("div", { class: "diag" }, `line ${x.line}: ${x.message}${x.hint ? " (" + x.hint + ")" : ""}`)));
      return;
    }
    const sc = await rpc("game.screen", { game: v.game });
    rpc("game.close", { game: v.game });
    const steps = sc.steps.length ? sc.steps : [{ note: [], events: v.events, path: [] }];
    $("cp-answer").replaceChildren(...steps.map((s) => el("div", { class: "step" },
      el("div", { class: "intent" }, ...s.note.map((l) => el("div", {}, l))), el("ul", {}, ...s.events.map((e) => eventItem(e))))),
      el("div", { class: "dim" }, sc.choice ? `then: ${sc.choice.prompt}` : ""));
    const path = steps.map((s) => s.path).filter((p) => p.length).at(-1) || [];
    const here = this.board.locations.map((l) => ({ id: l.id, victims: this.victims[l.id] || 0, killers: l.id === this.killer ? ["killer"] : [],
      minions: [], tokens: [], pieces: [], text: "", facts: "" }));
    drawBoard($("cp-board"), this.board, { locations: here, fg: { location: this.fg }, piles: {}, opened: [] },
      { legal: Object.fromEntries(this.board.locations.map((l) => [l.id, ["set"]])), path, onPick: (loc) => this.pick(loc) });
  },
};
$("cp-ask-killer").addEventListener("click", () => guarded(() => companion.ask("killer")));
$("cp-ask-panic").addEventListener("click", () => guarded(() => companion.ask("panic")));
$("cp-save").addEventListener("click", () => {
  const a = el("a", { href: URL.createObjectURL(new Blob([companion.text("killer")], { type: "text/plain" })), download: "table.position" });
  document.body.append(a); a.click(); a.remove();
});
for (const id of ["cp-health", "cp-fear", "cp-time", "cp-lust", "cp-dice", "cp-extra"]) $(id).addEventListener("input", () => companion.started && companion.draw());

// --- the design page ----------------------------------------------------------------------------------------
const design = {
  started: false, file: null, timer: null, checked: null, seq: 0,
  async start() {
    if (this.started) return;
    this.started = true;
    const got = await rpc("design.files");
    fill($("ds-file"), got.files.map((f) => ({ id: f.file, name: f.file + (f.bundled ? "" : " (pack)") })));
    if (!this.file) await this.open($("ds-file").value);
  },
  async open(file, line) {
    await this.start();
    if (this.file !== file) {
      const got = await rpc("design.open", { file });
      this.file = file;
      $("ds-file").value = file;
      $("ds-text").value = got.text;
      await this.check();
    }
    if (line) this.goto(line);
  },
  goto(line) {
    const ta = $("ds-text");
    const lines = ta.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    ta.focus();
    ta.setSelectionRange(start, start + (lines[line - 1] || "").length);
    ta.scrollTop = Math.max(0, (line - 5) * 17);
    this.sync();
  },
  gutter(diags) {
    const bad = new Map();
    for (const d of diags) if (!bad.has(d.line) || d.severity === "error") bad.set(d.line, d.severity);
    const n = $("ds-text").value.split("\n").length;
    const g = $("ds-gutter");
    g.replaceChildren(...Array.from({ length: n }, (_, i) => el("span", { class: `ln${bad.has(i + 1) ? " " + bad.get(i + 1) : ""}`,
      "data-line": i + 1, title: diags.filter((d) => d.line === i + 1).map((d) => d.message).join("\n") || undefined }, `${i + 1}\n`)));
    this.sync();
  },
  sync() { $("ds-gutter").scrollTop = $("ds-text").scrollTop; },
  async check() {
    const seq = ++this.seq;
    const text = $("ds-text").value;
    $("ds-status").textContent = "checking…";
    const got = await rpc("design.check", { file: this.file, text });
    if (seq !== this.seq) return;
    this.checked = got;
    document.body.dataset.designOk = got.ok ? "1" : "0";
    $("ds-status").textContent = got.ok ? "checks clean" : `${got.diagnostics.filter((d) => d.severity === "error").length} error(s)` +
      (got.errors_elsewhere ? ` (+${got.errors_elsewhere} in other files)` : "");
    $("ds-diags").replaceChildren(...got.diagnostics.map((d) => el("li", { class: `diag ${d.severity}`, "data-line": d.line,
      onclick: () => this.goto(d.line) }, `${d.line}:${d.col} ${d.severity}[${d.code}]: ${d.message}` + (d.hint ? ` (${d.hint})` : ""))));
    this.gutter(got.diagnostics);
    if (got.ok) $("ds-render").replaceChildren(...got.render.map((r) => el("div", { class: "rendered" }, el("pre", {}, r.text))));
  },
  edited() {
    clearTimeout(this.timer);
    this.gutter(this.checked ? this.checked.diagnostics : []);
    this.timer = setTimeout(() => guarded(() => this.check()), 250);
  },
  setupFor() {
    // a killer or scenario this file declares, when it declares one: that is what "play this" plays
    const p = setupParams();
    for (const r of (this.checked && this.checked.render) || []) {
      if (r.kind === "killer") p.killer = r.id;
      if (r.kind === "scenario") p.scenario = r.id;
      if (r.kind === "final girl") p.final_girl = r.id;
    }
    delete p.modules;
    return p;
  },
  async play() {
    const view = await rpc("design.play", { file: this.file, text: $("ds-text").value, ...this.setupFor() });
    showTab("play");
    await opened(view);
  },
  async simulate() {
    const total = Math.max(1, Math.min(100000, Number($("ds-games").value) || 500));
    const text = $("ds-text").value;
    const p = this.setupFor();
    delete p.seed;
    let done = 0, wins = 0;
    $("ds-progress").max = total;
    while (done < total) {
      const n = Math.min(50, total - done);
      const got = await rpc("design.simulate", { file: this.file, text, ...p, games: n, seed: 1 + done,
        wins_before: wins, games_before: done });
      done = got.total_games; wins = got.total_wins;
      $("ds-progress").value = done;
      $("ds-rate").textContent = `${done} games: the Final Girl wins ${(100 * got.win_rate).toFixed(1)}% ` +
        `(95% interval ${(100 * got.interval[0]).toFixed(1)}–${(100 * got.interval[1]).toFixed(1)}%)`;
    }
  },
};
$("ds-file").addEventListener("change", () => guarded(() => design.open($("ds-file").value)));
$("ds-text").addEventListener("input", () => design.edited());
$("ds-text").addEventListener("scroll", () => design.sync());
$("ds-play").addEventListener("click", () => guarded(() => design.play()));
$("ds-sim").addEventListener("click", () => guarded(() => design.simulate()));

// --- start ---------------------------------------------------------------------------------------------------
guarded(async () => {
  await loadContent();
  const q = new URLSearchParams(location.search);
  for (const [k, id] of [["killer", "ng-killer"], ["scenario", "ng-scenario"], ["final_girl", "ng-fg"], ["seed", "ng-seed"]]) {
    if (q.has(k)) $(id).value = q.get(k);
  }
  await newGame(setupParams());
  document.body.dataset.ready = "1";
  if (location.hash === "#design") showTab("design");
});
