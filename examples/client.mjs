#!/usr/bin/env node
// A JSON-RPC 2.0 client for `lastbreath serve` (docs/protocol.md), in plain Node.js (no packages).
//
//   node examples/client.mjs
//   LASTBREATH=/path/to/lastbreath CLIENT_SEED=7 node examples/client.mjs
//
// It starts the server (LASTBREATH, default `lastbreath` on PATH), picks random content and
// options, plays a whole game with random choices (some undone, a save and load half way),
// checks every answer of the protocol (ids echoed, exactly one of result and error, error
// codes) and exits 0; any failed check prints why and exits 1.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const EXE = process.env.LASTBREATH || "lastbreath";
const SEED = Number.parseInt(process.env.CLIENT_SEED ?? String(Math.floor(Math.random() * 2 ** 31)), 10);

// --- a small seeded generator, so that a failing run can be repeated with CLIENT_SEED ------------
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
const pick = (xs) => xs[Math.floor(random() * xs.length)];

function fail(message) {
  console.error(`client.mjs: FAILED: ${message} (CLIENT_SEED=${SEED})`);
  process.exit(1);
}
function check(cond, message) {
  if (!cond) fail(message);
}

// --- the connection ----------------------------------------------------------------------------
const child = spawn(EXE, ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (e) => fail(`cannot start '${EXE} serve': ${e.message}`));
const timer = setTimeout(() => fail("no answer within 120 s"), 120_000);

const waiting = new Map(); // JSON.stringify(id) -> resolve; "null" for messages the server cannot read
let nextId = 1;

createInterface({ input: child.stdout }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    fail(`the server wrote a line that is not JSON: ${line.slice(0, 200)}`);
  }
  check(msg && typeof msg === "object" && !Array.isArray(msg), `a reply is not an object: ${line}`);
  check(msg.jsonrpc === "2.0", `"jsonrpc" is not "2.0": ${line}`);
  check("id" in msg, `a reply has no id: ${line}`);
  check(("result" in msg) !== ("error" in msg), `a reply needs exactly one of result and error: ${line}`);
  if ("error" in msg) {
    const e = msg.error;
    check(Number.isInteger(e.code) && typeof e.message === "string" && e.message, `a malformed error: ${line}`);
  }
  const key = JSON.stringify(msg.id);
  const resolve = waiting.get(key);
  check(resolve, `a reply to an id nobody asked about: ${key}`);
  waiting.delete(key);
  resolve(msg);
});

function send(text, id) {
  return new Promise((resolve) => {
    waiting.set(JSON.stringify(id), resolve);
    child.stdin.write(text + "\n");
  });
}

// Ids alternate between numbers and strings: both must come back as they went.
function call(method, params) {
  const n = nextId++;
  const id = n % 2 ? n : `req-${n}`;
  const msg = { jsonrpc: "2.0", id, method };
  if (params !== undefined) msg.params = params;
  return send(JSON.stringify(msg), id).then((reply) => {
    check(reply.id === id, `id ${JSON.stringify(id)} came back as ${JSON.stringify(reply.id)}`);
    return reply;
  });
}

async function ok(method, params) {
  const reply = await call(method, params);
  check("result" in reply, `${method} failed: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function error(method, params, code) {
  const reply = await call(method, params);
  check("error" in reply, `${method} ${JSON.stringify(params)} should fail with ${code}`);
  check(reply.error.code === code, `${method}: error ${reply.error.code} instead of ${code}: ${reply.error.message}`);
  return reply.error;
}

function checkView(v, what) {
  check(typeof v.game === "string", `${what}: no game id`);
  check(typeof v.over === "boolean" && Number.isInteger(v.round) && Number.isInteger(v.choices), `${what}: bad view`);
  check(Array.isArray(v.events), `${what}: no events`);
  for (const e of v.events) {
    check(typeof e.kind === "string" && typeof e.text === "string" && typeof e.rule === "string", `${what}: bad event`);
  }
  if (v.over) {
    check(v.choice === null && (v.result === "fg" || v.result === "killer"), `${what}: a finished game needs a result`);
  } else {
    check(v.choice && Array.isArray(v.choice.options) && v.choice.options.length > 0, `${what}: no options`);
    for (const o of v.choice.options) check(typeof o.key === "string" && typeof o.label === "string", `${what}: bad option`);
  }
  return v;
}

// --- the game ----------------------------------------------------------------------------------
async function main() {
  const content = await ok("content.list");
  for (const k of ["killers", "scenarios", "final_girls", "difficulties", "tie_policies"]) {
    check(Array.isArray(content[k]) && content[k].length > 0, `content.list: no ${k}`);
  }
  const options = {
    killer: pick(content.killers).id,
    scenario: pick(content.scenarios).id,
    final_girl: pick(content.final_girls).id,
    difficulty: pick(content.difficulties),
    legendary: random() < 0.5,
    tie_policy: pick(content.tie_policies),
    seed: Math.floor(random() * 1_000_000),
  };
  console.log(`client seed ${SEED}: ${JSON.stringify(options)}`);

  // The protocol's errors, each followed by requests that still work.
  await error("game.nope", {}, -32601);
  await error("game.new", { killer: "no-such-killer" }, 1002);
  await error("game.new", { seed: "seven" }, -32602);
  await error("game.state", { game: "no-such-game" }, 1004);
  const bad = await send("{this is not json", null);
  check(bad.error && bad.error.code === -32700 && bad.id === null, "malformed JSON should get -32700 with id null");

  let view = checkView(await ok("game.new", options), "game.new");
  let gid = view.game;
  const illegal = await error("game.apply", { game: gid, key: "no-such-option" }, 1001);
  check(Array.isArray(illegal.data?.options), "1001 should list the options");
  const same = checkView(await ok("game.state", { game: gid }), "game.state");
  check(same.choices === 0 && JSON.stringify(same.choice) === JSON.stringify(view.choice), "an illegal option changed the game");
  check(same.state && typeof same.state === "object", "game.state: no state");

  let undos = 0;
  let reloaded = false;
  for (let steps = 0; !view.over; steps++) {
    check(steps < 10_000, "the game did not end");
    if (view.choices > 0 && undos < 20 && random() < 0.1) {
      const before = view.choices;
      view = checkView(await ok("game.undo", { game: gid }), "game.undo");
      check(view.choices === before - 1, "undo did not take back one choice");
      undos++;
      continue;
    }
    if (!reloaded && view.choices >= 10) {
      const { save } = await ok("game.save", { game: gid });
      check(save.format === "lastbreath-save" && save.choices.length === view.choices, "game.save: bad save");
      const stale = await error("game.load", { save: { ...save, content: "0000000000000000" } }, 1003);
      check(stale.message.includes("content hash"), "a stale save should name the content hash");
      await error("game.load", { save: JSON.stringify(save).slice(0, 50) }, 1003);
      const loaded = checkView(await ok("game.load", { save }), "game.load");
      check(loaded.game !== gid && loaded.choices === view.choices, "game.load: a different game");
      check(JSON.stringify(loaded.choice) === JSON.stringify(view.choice), "game.load: the choice differs");
      await ok("game.close", { game: gid });
      gid = loaded.game;
      view = loaded;
      reloaded = true;
      continue;
    }
    view = checkView(await ok("game.apply", { game: gid, key: pick(view.choice.options).key }), "game.apply");
  }

  const why = await ok("game.explain", { game: gid });
  check(why.game === gid && Array.isArray(why.events), "game.explain: bad answer");
  for (const e of why.events) check("rule" in e && "source" in e, "game.explain: an event without rule and source");
  if (why.target !== null) {
    check(["nearest", "victim-count", "tie-policy"].includes(why.target.decided_by), "game.explain: bad targeting");
    check(why.target.candidates.length > 0, "game.explain: no candidates");
  }
  await ok("game.close", { game: gid });

  const who = view.result === "fg" ? "the Final Girl wins" : "the killer wins";
  console.log(`result: ${who} (${view.end_reason}) in round ${view.round} after ${view.choices} choices, ${undos} undone`);
  check(waiting.size === 0, "some requests got no answer");
  child.stdin.end();
  const code = await new Promise((resolve) => child.on("exit", resolve));
  check(code === 0, `the server exited with ${code}`);
  clearTimeout(timer);
  process.exit(0);
}

main().catch((e) => fail(e?.stack || String(e)));
