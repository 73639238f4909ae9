// The page of `dominoai serve`: the lobby, the forms and a table of dominoes.
// Plain JavaScript, no build step. It speaks the server's websocket protocol
// (docs: "Play on a server") and draws every tile from the definitions of
// dominoai.render (served at api/tiles.svg), laying the line out as
// dominoai.render lays it, at a table width chosen so the line fits the board.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const END_INDEX = { left: 0, right: 1, up: 2, down: 3 };
const END_KEYS = { l: "left", r: "right", u: "up", d: "down" };
// the largest drawing of a layout unit (a tile is 2 units long), in px: on a
// small board MIN_UNIT_CAP; on a wide one the board's width / UNITS_ACROSS
// (and its height / UNITS_DOWN), up to MAX_UNIT_CAP
const MIN_UNIT_CAP = 30, MAX_UNIT_CAP = 60, UNITS_ACROSS = 26, UNITS_DOWN = 10;
const MAX_HAND_PX = 52;       // the widest tile of the person's hand
const MAX_BACKS = 10;         // face-down tiles drawn per opponent (the count is written)

const S = {
  ws: null, name: "", presets: [], levels: [],
  tables: {},                 // code -> the last table frame
  code: null,                 // the table on screen
  selected: null,             // a tile tapped that fits two ends
  drawQueue: [],              // tiles just drawn, still shown face down in the boneyard
  seen: {},                   // code -> {hand, step, tiles}: what the page showed last
  refused: null,              // {text, moves}: the reason a tile was refused
  paused: false, sound: localStorage.getItem("dai-sound") !== "off",
  sentAt: -1,                 // the `moves` count of the position a move was sent for
  pending: null,              // the tile a move was sent with (it shakes if refused)
  lastMoves: {},              // code -> the `moves` count drawn last
  boardShown: null,           // "code:hand" whose sheet (or results) is put aside to see the board
};

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
};
const sv = (tag, attrs = {}) => {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const pips = (tile) => tile.split(":").map(Number);
const tileName = (a, b) => (a >= b ? `${a}:${b}` : `${b}:${a}`);

// ------------------------------------------------------------------ tiles
// a tile face up, its `a` half at -x, as dominoai.render draws it
function face(a, b, last) {
  const g = sv("g");
  g.append(sv("use", { href: "#dai-face" }), sv("use", { href: `#dai-p${a}`, x: -0.5 }),
           sv("use", { href: `#dai-p${b}`, x: 0.5 }));
  if (last) g.append(sv("rect", { x: -1, y: -0.5, width: 2, height: 1, rx: 0.14, fill: "none",
                                  stroke: "#e0a800", "stroke-width": 0.14, class: "frame" }));
  return g;
}
// an upright tile (high half on top) as a small <svg>
function uprightSvg(tile) {
  const [a, b] = pips(tile);
  const s = sv("svg", { viewBox: "-0.5 -1 1 2", "aria-hidden": "true", focusable: "false" });
  const g = face(a, b, false);
  g.setAttribute("transform", "rotate(90)");
  s.append(g);
  return s;
}
function backSvg() {
  const s = sv("svg", { viewBox: "-0.5 -1 1 2", "aria-hidden": "true", focusable: "false" });
  s.append(sv("rect", { x: -0.5, y: -1, width: 1, height: 2, rx: 0.14, fill: "#7a2e2e",
                        stroke: "#2b1010", "stroke-width": 0.05 }));
  return s;
}

// ------------------------------------------------------------------ the line's layout
// The same layout as dominoai.render.layout.line_layout: the line starts in
// the middle and snakes, turning at the table's edges (`width` units wide).
function chains(events, spinner) {
  let lead = null;
  const ch = [[], [], [], []];
  const sp = spinner ? pips(spinner)[0] : null;
  const ends = [null, null, sp, sp];
  let order = 0;
  for (const ev of events) {
    if (ev.kind !== "play") continue;
    const [hi, lo] = pips(ev.tile);
    if (lead === null) {
      const [a, b] = ev.shown ? pips(ev.shown) : [hi, lo];
      lead = [ev.tile, a, b];
      ends[0] = a; ends[1] = b;
    } else {
      const k = END_INDEX[ev.end];
      let near = ends[k];
      if (near !== hi && near !== lo) near = hi;
      const far = near === hi ? lo : hi;
      ch[k].push([ev.tile, near, far, order]);
      ends[k] = far;
    }
    order += 1;
  }
  return [lead, ch];
}

function isDouble(tile) { const [a, b] = pips(tile); return a === b; }

function walk(chain, start, d, f, lo, hi, armOf) {
  const out = [];
  let [px, py] = start, [dx, dy] = d;
  const [fx, fy] = f;
  let inRow = 0, afterTurn = false;
  const along = (x, y) => x * dx + y * dy;
  for (const [t, near, far, o] of chain) {
    const arm = armOf[o] || "";
    const cross = isDouble(t) && !afterTurn;
    const length = cross ? 1.0 : 2.0;
    const limit = (dx + dy) > 0 ? hi : -lo;
    if (inRow && along(px, py) + length > limit - 1.0 + 1e-9) {
      out.push({ tile: t, a: near, b: far, x: px + 0.5 * dx + 0.5 * fx, y: py + 0.5 * dy + 0.5 * fy,
                 dx: fx, dy: fy, arm, order: o });
      px = px + dx + 2 * fx; py = py + dy + 2 * fy;
      dx = -dx; dy = -dy;
      inRow = 0; afterTurn = true;
      continue;
    }
    if (cross) {
      out.push({ tile: t, a: near, b: far, x: px + 0.5 * dx, y: py + 0.5 * dy, dx: Math.abs(fx), dy: Math.abs(fy),
                 arm, order: o });
    } else {
      out.push({ tile: t, a: near, b: far, x: px + dx, y: py + dy, dx, dy, arm, order: o });
    }
    px += length * dx; py += length * dy;
    inRow += 1; afterTurn = false;
  }
  return out;
}

// The line's arms, ready to be laid at any table size: the root tile (the
// lead, or the spinner), the tiles east and west of it along the row, and
// the spinner's up and down arms.
function prepare(events, spinner) {
  const [lead, ch] = chains(events, spinner);
  if (lead === null) return null;
  const row = ch[0].slice().reverse().map(([t, near, far, o]) => [t, far, near, o, "left"]);
  row.push([lead[0], lead[1], lead[2], 0, "lead"]);
  for (const [t, near, far, o] of ch[1]) row.push([t, near, far, o, "right"]);
  let rootI = ch[0].length;
  if (spinner) {
    const i = row.findIndex((e) => e[0] === spinner);
    if (i >= 0) rootI = i;
  }
  const root = row[rootI];
  const east = row.slice(rootI + 1).map(([t, lp, rp, o]) => [t, lp, rp, o]);
  const west = row.slice(0, rootI).reverse().map(([t, lp, rp, o]) => [t, rp, lp, o]);
  const armOf = {};
  for (const e of row) armOf[e[3]] = e[4];
  armOf[root[3]] = "root";
  if (spinner) {
    for (const e of ch[2]) armOf[e[3]] = "up";
    for (const e of ch[3]) armOf[e[3]] = "down";
  }
  const [t, lp, rp, o] = root;
  const dbl = isDouble(t);
  return { spinner: !!spinner, east, west, up: ch[2], down: ch[3], armOf,
           root: { tile: t, a: lp, b: rp, x: 0, y: 0, dx: dbl ? 0 : 1, dy: dbl ? 1 : 0, arm: "root", order: o },
           eStart: dbl ? 0.5 : 1.0, wStart: dbl ? -0.5 : -1.0 };
}

// A tile laid after the last of an arm: where a tile played on that end goes
const GHOST = ["1:0", 0, 1, -1];
function withGhost(chain, ghost) { return ghost ? chain.concat([GHOST]) : chain; }
function splitGhost(tiles, ghost) { return ghost ? [tiles.slice(0, -1), tiles.slice(-1)] : [tiles, []]; }

// the row's tiles east and west of the root on a table `width` wide, its
// edges moved `shift` right; with `ends` (a Set of end names), also the
// places of a tile played on the left and right ends: [tiles, places]
function rowArms(pr, width, shift, ends = null) {
  const hw = width / 2;
  const ge = !!ends && ends.has("right"), gw = !!ends && ends.has("left");
  // the x range each half of the row may use (beside a spinner, it stays off the up and down arms)
  const eastX = pr.spinner ? [1.5, hw + shift] : [-hw + shift, hw + shift];
  const westX = pr.spinner ? [-hw + shift, -1.5] : [-hw + shift, hw + shift];
  const [e, pe] = splitGhost(walk(withGhost(pr.east, ge), [pr.eStart, 0], [1, 0], [0, pr.spinner ? -1 : 1],
                                  eastX[0], eastX[1], pr.armOf), ge);
  const [w, pw] = splitGhost(walk(withGhost(pr.west, gw), [pr.wStart, 0], [-1, 0], [0, pr.spinner ? 1 : -1],
                                  westX[0], westX[1], pr.armOf), gw);
  return [e.concat(w), pe.concat(pw)];
}

// the spinner's up and down arms on a table `height` high (and the places
// of the up and down ends in `ends`): [tiles, places]
function spinnerArms(pr, height, ends = null) {
  if (!pr.spinner) return [[], []];
  const hh = height / 2;
  const gu = !!ends && ends.has("up"), gd = !!ends && ends.has("down");
  const [u, pu] = splitGhost(walk(withGhost(pr.up, gu), [0, -1], [0, -1], [-1, 0], -hh, -1.5, pr.armOf), gu);
  const [d, pd] = splitGhost(walk(withGhost(pr.down, gd), [0, 1], [0, 1], [1, 0], 1.5, hh, pr.armOf), gd);
  return [u.concat(d), pu.concat(pd)];
}

// `shift` moves the table's edges right (the line's root stays at x = 0):
// the table spans -width/2 + shift .. width/2 + shift. The server lays the
// line out without one.
function lineLayout(events, spinner, width = 26, height = 16, shift = 0) {
  const pr = prepare(events, spinner);
  if (pr === null) return [];
  const out = [{ ...pr.root }].concat(rowArms(pr, width, shift)[0], spinnerArms(pr, height)[0]);
  out.sort((p, q) => p.order - q.order);
  if (out.length) out[out.length - 1].last = true;
  for (const p of out) {
    if (!p.last) p.last = false;
    p.x = +p.x.toFixed(6); p.y = +p.y.toFixed(6);
  }
  return out;
}

function box(p) {
  const hw = p.dx ? 1 : 0.5, hh = p.dy ? 1 : 0.5;
  return [p.x - hw, p.y - hh, p.x + hw, p.y + hh];
}

// The line at `width`, with a dashed place at every open end: the place is
// where a tile laid on that end would go (a tile that is not a double).
function placesFor(hand, width, height, shift) {
  const places = [];
  if (!hand.events.some((e) => e.kind === "play")) {
    places.push({ end: null, pip: null, x: 0, y: 0, dx: 1, dy: 0 });
    return places;
  }
  for (const e of hand.ends) {
    const other = (e.pip + 1) % 7;
    const ghost = { kind: "play", tile: tileName(e.pip, other), end: e.end };
    const lay = lineLayout(hand.events.concat([ghost]), hand.spinner, width, height, shift);
    const p = lay[lay.length - 1];
    places.push({ end: e.end, pip: e.pip, x: p.x, y: p.y, dx: p.dx, dy: p.dy });
  }
  return places;
}

function bounds(items) {
  let x0 = -1, y0 = -0.5, x1 = 1, y1 = 0.5;
  for (const p of items) {
    const [a, b, c, d] = box(p);
    x0 = Math.min(x0, a); y0 = Math.min(y0, b); x1 = Math.max(x1, c); y1 = Math.max(y1, d);
  }
  return [x0, y0, x1, y1];
}

// tiles off the line's straight arms: the tiles of the rows after a turn
function turned(line) {
  let n = 0;
  for (const p of line) {
    const upright = p.arm === "up" || p.arm === "down";
    if (Math.abs(upright ? p.x : p.y) > 1e-6) n += 1;
  }
  return n;
}

// the largest drawing of a unit (px) on a board of bw x bh pixels
function unitCap(bw, bh) {
  return Math.max(MIN_UNIT_CAP, Math.min(MAX_UNIT_CAP, bw / UNITS_ACROSS, bh / UNITS_DOWN));
}

// How the line is drawn in a board of bw x bh pixels: the table's width,
// shift (its edges moved right: the line need not be centred on its root)
// and height (the spinner's up and down arms) at which the line and its
// places are drawn largest, up to unitCap(); of those, the straightest (the
// fewest tiles after a turn). `withPlaces`: false leaves the places out (a
// hand that is over). Returns {scale (px a unit), line, places, cx, cy (the
// centre of their box, units), width, height, shift}.
function fitLayout(hand, bw, bh, withPlaces = true) {
  const M = 0.3;                                          // a margin around the line, units
  const cap = unitCap(bw, bh);
  const scaleOf = ([x0, y0, x1, y1]) => Math.min(cap, bw / (x1 - x0 + 2 * M), bh / (y1 - y0 + 2 * M));
  const done = (w, ht, shift) => {
    const line = lineLayout(hand.events, hand.spinner, w, ht, shift);
    const places = withPlaces ? placesFor(hand, w, ht, shift) : [];
    const b = bounds(line.concat(places));
    return { scale: scaleOf(b), line, places, bend: turned(line), cx: (b[0] + b[2]) / 2, cy: (b[1] + b[3]) / 2,
             width: w, height: ht, shift };
  };
  const pr = prepare(hand.events, hand.spinner);
  if (pr === null) return done(26, 16, 0);
  const ends = withPlaces ? new Set(hand.ends.map((e) => e.end)) : null;
  // the row's arms depend on the width and shift only, the spinner's on the height only
  const heights = hand.spinner ? [30, 24, 20, 16, 14, 12, 10, 8, 6, 4] : [16];
  const upright = heights.map((ht) => {
    const [tiles, places] = spinnerArms(pr, ht, ends);
    return { ht, box: bounds(tiles.concat(places, [pr.root])), bend: turned(tiles) };
  });
  // the row's reach east and west of the root if it never turned, with the places at its ends
  const [sx0, , sx1] = bounds(rowArms(pr, 1000, 0, ends).flat());
  let best = null;
  for (let w = 60; w >= 6; w -= 1) {
    const hw = w / 2, room = hand.spinner ? 3 : 2.5;     // the least room kept on each side of the root
    const shifts = [0];
    const centred = Math.max(-(hw - room), Math.min(hw - room, (sx1 + sx0) / 2));
    if (Math.abs(centred) > 1e-9) shifts.push(centred);
    for (const shift of shifts) {
      const [tiles, places] = rowArms(pr, w, shift, ends);
      const rb = bounds(tiles.concat(places)), rbend = turned(tiles);
      for (const u of upright) {
        const b = [Math.min(rb[0], u.box[0]), Math.min(rb[1], u.box[1]), Math.max(rb[2], u.box[2]),
                   Math.max(rb[3], u.box[3])];
        const scale = scaleOf(b), bend = rbend + u.bend;
        if (!best || scale > best.scale + 1e-9 || (scale >= best.scale - 1e-9 && bend < best.bend))
          best = { scale, bend, w, ht: u.ht, shift };
        if (best.scale >= cap - 1e-9 && best.bend === 0) return done(best.w, best.ht, best.shift);
      }
    }
  }
  return done(best.w, best.ht, best.shift);
}

// ------------------------------------------------------------------ connection
function send(msg) {
  if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(msg));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const base = location.pathname.replace(/[^/]*$/, "");
  const ws = new WebSocket(`${proto}://${location.host}${base}ws`);
  S.ws = ws;
  ws.onmessage = (ev) => onFrame(JSON.parse(ev.data));
  ws.onclose = () => { S.ws = null; setTimeout(connect, 1000); };
}

function onFrame(f) {
  if (f.type === "welcome") {
    S.sentAt = -1;               // a move sent before a lost connection may be sent again
    S.name = f.name || "";
    $("name-input").value = S.name;
    S.continue = f.tables || [];
    renderContinue();
    const h = parseHash();
    if (h.t) { S.code = h.t; send({ type: "resume", code: h.t }); }
    else if (h.join) { location.hash = `t=${h.join}`; send({ type: "join", code: h.join }); S.code = h.join; }
    if (S.continue.length) send({ type: "resume" });
    send({ type: "lobby" });
    send({ type: "stats" });
  } else if (f.type === "opened") {
    S.code = f.code;
    location.hash = `t=${f.code}`;
  } else if (f.type === "table") {
    S.tables[f.code] = f;
    if (S.code === f.code && f.status !== "finished") S.statsAsked = false;   // asked again when it ends
    if (S.code === f.code) { showScreen("table"); renderTable(); }
    renderContinue();
  } else if (f.type === "lobby") {
    renderLobby(f.tables);
  } else if (f.type === "stats") {
    S.stats = f.stats;
    S.statsPending = false;
    renderStats();
    const t = S.code && S.tables[S.code];
    if (t && t.status === "finished" && !$("table").hidden) renderResults(t);
  } else if (f.type === "left") {
    if (S.code === f.code) leaveToLobby();
  } else if (f.type === "error") {
    onError(f);
  }
}

function onError(f) {
  if (f.request === "play" && S.code && $("table").hidden === false) {
    const t = S.tables[S.code];
    S.refused = { text: f.message, moves: t ? t.moves : -1 };
    S.sentAt = -1;
    if (S.pending) { shake(S.pending); S.pending = null; }
    renderTopline();
    return;
  }
  if ((f.request === "join" || f.request === "resume") && S.code && !S.tables[S.code]) {
    S.code = null; location.hash = ""; showScreen("lobby");
  }
  $("lobby-message").textContent = f.message;
  const t = S.code && S.tables[S.code];
  if (t && !$("table").hidden) { S.refused = { text: f.message, moves: t.moves }; renderTopline(); }
}

function parseHash() {
  const out = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    const [k, v] = part.split("=");
    if (k && v) out[k] = decodeURIComponent(v);
  }
  return out;
}

// ------------------------------------------------------------------ the lobby
function showScreen(which) {
  document.body.dataset.screen = which;
  $("lobby").hidden = which !== "lobby";
  $("table").hidden = which !== "table";
}

function leaveToLobby() {
  S.code = null; S.selected = null; S.drawQueue = [];
  location.hash = "";
  showScreen("lobby");
  send({ type: "lobby" }); send({ type: "stats" });
  renderContinue();
}

function variantLabel(v) { return v.replace(/_/g, " "); }

function renderContinue() {
  const list = $("continue-list");
  list.replaceChildren();
  const codes = new Set(S.continue || []);
  for (const [code, f] of Object.entries(S.tables)) if (f.status !== "finished" && f.seat !== null) codes.add(code);
  for (const [code, f] of Object.entries(S.tables)) if (f.status === "finished") codes.delete(code);
  for (const code of codes) {
    const f = S.tables[code];
    const what = f ? `${variantLabel(f.settings.variant)}, ${f.settings.players} players, ` +
      (f.match ? `hand ${f.match.hands}, score ${f.match.scores.join("–")}` : "waiting") : "a table";
    list.append(el("li", {}, el("span", { text: what }),
      el("button", { type: "button", class: "continue", "data-code": code, onclick: () => openTable(code),
                     text: "CONTINUE" })));
  }
  $("continue-box").hidden = codes.size === 0;
}

function openTable(code) {
  S.code = code; S.selected = null; S.drawQueue = [];
  location.hash = `t=${code}`;
  send({ type: "resume", code });
}

function renderLobby(tables) {
  const list = $("lobby-list");
  list.replaceChildren();
  if (!tables.length) list.append(el("li", { class: "muted", text: "No table is waiting." }));
  for (const t of tables) {
    const seats = t.seats.map((n) => n === null ? "free" : personName(n)).join(", ");
    list.append(el("li", { class: "lobby-table", "data-code": t.code },
      el("span", { text: `${variantLabel(t.variant)}, ${t.players} players, bots ${t.level}: ${seats}` }),
      el("button", { type: "button", onclick: () => { S.code = t.code; send({ type: "join", code: t.code }); },
                     text: "JOIN" })));
  }
}

function renderStats() {
  const box = $("stats-box");
  const rows = [];
  for (const [variant, levels] of Object.entries(S.stats || {}))
    for (const [level, s] of Object.entries(levels)) rows.push([variant, level, s]);
  if (!rows.length) { box.textContent = "No finished match yet."; return; }
  box.replaceChildren(statsTable(rows));
}

function statsTable(rows) {
  const tb = el("table", { class: "stats" });
  tb.append(el("tr", {}, ...["game", "bots", "matches", "won", "lost", "drawn", "hands won"].map(
    (h) => el("th", { text: h }))));
  for (const [variant, level, s] of rows)
    tb.append(el("tr", {}, ...[variantLabel(variant), level, s.matches, s.wins, s.losses, s.draws,
      `${s.hands_won} of ${s.hands}`].map((v) => el("td", { text: String(v) }))));
  return tb;
}

function fillForm() {
  const vs = $("open-variant");
  vs.replaceChildren(...S.presets.map((p) => el("option", { value: p.name, text: variantLabel(p.name) })));
  $("open-level").replaceChildren(...S.levels.map((l) => el("option", { value: l, text: l,
                                                                         selected: l === "medium" })));
  const players = () => {
    const p = S.presets.find((x) => x.name === vs.value);
    const ps = $("open-players");
    ps.replaceChildren();
    for (let n = p.min_players; n <= p.max_players; n++)
      ps.append(el("option", { value: n, text: String(n), selected: n === p.players }));
    target();
  };
  vs.onchange = players;
  $("open-players").onchange = target;
  players();
}

// the placeholder of "Play to": the game's target at the number of players chosen
function target() {
  const name = $("open-variant").value;
  const p = S.presets.find((x) => x.name === name);
  const n = $("open-players").value;
  const t = S.targets && S.targets[name] && S.targets[name][n];
  $("open-target").placeholder = String(t === undefined ? p.target : t);   // empty: that target
}

// ------------------------------------------------------------------ the table
// A person's name that could be taken for a bot's label, or for the page's "You"
const LOOKS_LIKE_A_BOT = /\bbots?\b|^\s*you\s*$/i;
function personName(name) { return LOOKS_LIKE_A_BOT.test(name) ? `${name} (person)` : name; }

// A seat as the page names it: "You"; a bot by its spec, "(bot)"; a person
// by their name, "(person)" added when the name reads like a bot's label;
// the seat's number where another seat of the same kind has the same name.
function seatName(f, s) {
  const st = f.seats[s];
  if (st.you) return "You";
  if (st.name === null) return "free seat";
  const twin = f.seats.some((o) => o.seat !== st.seat && !o.you && o.name === st.name && !o.bot === !st.bot);
  if (st.bot) return `${st.name} (bot${twin ? `, seat ${s}` : ""})`;
  const tags = [];
  if (LOOKS_LIKE_A_BOT.test(st.name)) tags.push("person");
  if (twin) tags.push(`seat ${s}`);
  return tags.length ? `${st.name} (${tags.join(", ")})` : st.name;
}
function seatKind(f, s) { const st = f.seats[s]; return st.name === null ? "free" : st.bot ? "bot" : "person"; }
function sideName(f, side) {
  if (f.rules.partnerships) {
    const mine = f.seat !== null && f.seat % 2 === side;
    return mine ? "your pair" : "their pair";
  }
  return seatName(f, side);
}

// where the keyboard's focus is, as a selector that finds it again after a redraw
function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  const hand = ["#hand .tile.lit", "#hand .tile"];
  if (a.closest("#hand") && a.dataset.tile) return [`#hand .tile[data-tile="${a.dataset.tile}"]`, ...hand];
  if (a.closest("#board .place")) return [`#board .place[data-end="${a.closest(".place").dataset.end}"]`, ...hand];
  if (a.closest("#boneyard")) return ["#boneyard .tile.back", ...hand];
  if (a.id) return [`#${a.id}`, "#next-hand", ...hand];
  return null;
}

function restoreFocus(key) {
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  for (const sel of key) {
    const node = document.querySelector(sel);
    if (node && node.offsetParent !== null) { node.focus({ preventScroll: true }); return; }
  }
}

function renderTable() {
  const focus = focusKey();
  drawTable();
  restoreFocus(focus);
}

function drawTable() {
  const f = S.tables[S.code];
  if (!f) return;
  document.body.dataset.status = f.status;
  document.body.dataset.moves = String(f.moves);
  const h = f.hand;
  // a new position: forget a selection and an old refusal
  if (S.lastMoves[f.code] !== f.moves) {
    if (S.lastMoves[f.code] !== undefined && f.moves > S.lastMoves[f.code]) beep();
    S.lastMoves[f.code] = f.moves;
    S.selected = null;
    trackDraws(f);
  }
  if (S.refused && S.refused.moves !== f.moves) S.refused = null;
  $("waiting").hidden = f.status !== "waiting";
  if (f.status === "waiting") renderWaiting(f);
  renderBadges(f);
  renderOthers(f);
  renderBoneyard(f);
  renderActions(f);
  renderHand(f);
  renderTopline();
  $("table").style.setProperty("--bar-h", `${$("bar").offsetHeight}px`);   // the panels start below it
  renderBoard(f);         // last: the board takes the room the others leave
  const aside = boardShown(f);
  $("sheet").hidden = f.status !== "hand_over" || aside;
  if (f.status === "hand_over" && !aside) renderSheet(f);
  $("results").hidden = f.status !== "finished" || aside;
  if (f.status === "finished" && !aside) renderResults(f);
  $("paused").hidden = !S.paused;
  if (h) S.seen[f.code] = { hand: h.index, step: h.step, tiles: h.tiles.slice() };
}

// Tiles the engine drew for this seat since the page last showed the hand:
// they wait face down in the boneyard until the person taps it.
function trackDraws(f) {
  const h = f.hand;
  S.drawQueue = [];
  if (!h || !h.your_turn || !h.must_play) return;
  const prev = S.seen[f.code];
  if (!prev || prev.hand !== h.index) return;
  const drew = h.events.slice(prev.step).some((e) => e.kind === "draw" && e.seat === f.seat);
  if (!drew) return;
  const fresh = h.tiles.filter((t) => !prev.tiles.includes(t) && t !== h.must_play);
  S.drawQueue = fresh.concat([h.must_play]);
}

function renderWaiting(f) {
  const link = `${location.origin}${location.pathname}#join=${encodeURIComponent(f.code)}`;
  const seats = f.seats.map((s) => el("li", { "data-kind": seatKind(f, s.seat),
                                              text: `seat ${s.seat}: ${s.name === null ? "free" : personName(s.name)}` +
                                                    (s.you ? " (you)" : "") }));
  $("waiting").replaceChildren(
    el("h2", { text: "Waiting for people" }),
    el("p", { text: "Give your friends the code or the link:" }),
    el("p", {}, el("code", { id: "table-code", text: f.code })),
    el("p", {}, el("a", { href: link, text: link })),
    el("ul", { class: "list" }, ...seats),
    el("div", { class: "buttons" },
      el("button", { type: "button", id: "leave-button", onclick: () => send({ type: "leave", code: f.code }),
                     text: "Leave" }),
      el("button", { type: "button", onclick: leaveToLobby, text: "Lobby" })));
}

function badge(id, text) { return el("span", { class: "badge", id, text }); }

function renderBadges(f) {
  const b = [];
  const r = f.rules;
  const h = f.hand;
  if (f.match) {
    const sc = f.match.scores.map((s, i) => `${sideName(f, i)} ${s}`).join(" · ");
    b.push(badge("badge-score", `${sc} / ${r.target}${r.points_unit === "points" ? "" : " " + r.points_unit}`));
  }
  if (h && r.drawing) b.push(badge("badge-boneyard", `boneyard ${h.boneyard + S.drawQueue.length}`));
  if (h && r.end_scoring !== "none") b.push(badge("badge-count", `ends ${h.count}`));
  if (h && h.goals) b.push(badge("badge-goals", `goals ${h.goals.join("–")}`));
  if (h && r.preset === "kozel") b.push(badge("badge-carry", `carried ${h.carry}`));
  $("badges").replaceChildren(...b);
}

function renderOthers(f) {
  const n = f.seats.length;
  const mine = f.seat === null ? 0 : f.seat;
  const out = [];
  for (let k = 1; k < n; k++) {
    const s = (mine + k) % n;
    const h = f.hand;
    const count = h ? h.sizes[s] : 0;
    const turn = h && h.to_move === s;
    const partner = f.rules.partnerships && (s + 2) % 4 === mine;
    const backs = el("div", { class: "backs" });
    const shown = f.result && f.status !== "playing" ? f.result.tiles[s] : null;
    if (shown) {                                             // the hand is over: every tile is shown
      backs.classList.add("shown");
      for (const t of shown) {
        const u = uprightSvg(t);
        u.classList.add("tile", "shown");
        u.setAttribute("aria-label", t); u.setAttribute("role", "img"); u.removeAttribute("aria-hidden");
        backs.append(u);
      }
    } else {
      for (let i = 0; i < Math.min(count, MAX_BACKS); i++) {   // the count is in the name
        const b = backSvg();
        b.classList.add("tile", "back");
        backs.append(b);
      }
    }
    const label = `${seatName(f, s)}${partner ? " (partner)" : ""}: ${count} tile${count === 1 ? "" : "s"}`;
    out.push(el("div", { class: "other" + (turn ? " to-move" : ""), "data-seat": s, "data-kind": seatKind(f, s),
                         "aria-label": label },
      el("span", { class: "name", text: `${seatName(f, s)}${partner ? " ★" : ""} · ${count}` }), backs));
  }
  $("others").replaceChildren(...out);
}

function legalOf(h, tile) { return (h.legal || []).find((m) => m.tile === tile); }

function renderBoard(f) {
  const board = $("board");
  const h = f.hand;
  board.replaceChildren();
  if (!h) return;
  const bw = board.clientWidth || 300, bh = board.clientHeight || 200;
  const fit = fitLayout(h, bw, bh, f.status === "playing");
  const uw = bw / fit.scale, uh = bh / fit.scale;       // centred on the line and its places
  const svg = sv("svg", { viewBox: `${fit.cx - uw / 2} ${fit.cy - uh / 2} ${uw} ${uh}`, role: "img",
                          "aria-label": `The line: ${fit.line.map((p) => p.tile).join(", ") || "no tile yet"}`,
                          "data-width": fit.width, "data-height": fit.height, "data-shift": fit.shift });
  for (const p of fit.line) {
    const g = face(p.a, p.b, p.last);
    const ang = Math.atan2(p.dy, p.dx) * 180 / Math.PI;
    g.setAttribute("transform", `translate(${p.x} ${p.y}) rotate(${ang})`);
    g.setAttribute("class", "tile line" + (p.last ? " last" : "") + (p.tile === h.spinner ? " spinner" : ""));
    g.setAttribute("data-tile", p.tile);
    g.setAttribute("data-order", p.order);
    g.setAttribute("data-arm", p.arm);
    g.setAttribute("aria-label", p.tile + (p.last ? " (last played)" : ""));
    g.setAttribute("role", "img");
    svg.append(g);
  }
  const sel = S.selected ? legalOf(h, S.selected) : null;
  const playing = f.status === "playing" && h.your_turn && !S.drawQueue.length;
  for (const pl of fit.places) {
    const ang = Math.atan2(pl.dy, pl.dx) * 180 / Math.PI;
    const fits = playing && (sel ? sel.ends.includes(pl.end) : pl.end === null && (h.legal || []).length > 0);
    const g = sv("g", { class: "place" + (fits ? " lit" : ""), transform: `translate(${pl.x} ${pl.y}) rotate(${ang})`,
                        "data-end": pl.end === null ? "lead" : pl.end, tabindex: fits ? "0" : "-1", role: "button",
                        "aria-label": pl.end === null ? "the first tile's place" : `${pl.end} end, shows ${pl.pip}` });
    g.append(sv("rect", { x: -0.95, y: -0.45, width: 1.9, height: 0.9, rx: 0.12 }));
    g.addEventListener("click", () => tapPlace(pl.end));
    g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); tapPlace(pl.end); } });
    svg.append(g);
  }
  board.append(svg);
}

function renderBoneyard(f) {
  const h = f.hand;
  const yard = $("boneyard");
  if (!h || !f.rules.drawing) { yard.hidden = true; return; }
  yard.hidden = false;
  const n = h.boneyard + S.drawQueue.length;
  const drawing = S.drawQueue.length > 0;
  yard.classList.toggle("lit", drawing);
  const kids = [el("span", { class: "label", text: `Boneyard ${n}` })];
  for (let i = 0; i < n; i++) {
    const b = el("button", { type: "button", class: "tile back", "aria-label": "face-down tile: draw",
                             tabindex: drawing && i === 0 ? "0" : "-1", onclick: drawOne });
    b.append(backSvg());
    kids.push(b);
  }
  yard.replaceChildren(...kids);
  // the whole lit boneyard takes the tap, its label and gaps too (a tile's own tap draws once)
  yard.onclick = (e) => { if (!e.target.closest(".tile.back")) drawOne(); };
}

function renderActions(f) {
  const h = f.hand;
  const out = [];
  if (h && f.status === "playing" && h.your_turn && h.replace)
    out.push(el("button", { type: "button", id: "replace-button", onclick: () => sendPlay({ replace: true }),
                            text: "Replace a tile" }));
  if (boardShown(f)) {      // the sheet (or the results) put aside: the way back, and the next hand
    out.push(el("button", { type: "button", id: "sheet-show", onclick: () => showBoard(false),
                            text: f.status === "finished" ? "Show the results" : "Show the sheet" }));
    if (f.status === "hand_over" && !(f.seat !== null && f.ready.includes(f.seat)))
      out.push(el("button", { type: "button", id: "next-hand-bar", onclick: nextHand, text: "NEXT HAND" }));
  }
  $("actions").replaceChildren(...out);
}

// whether the person put the hand's sheet (or the match's results) aside to look at the board
function boardShown(f) {
  return (f.status === "hand_over" || f.status === "finished") && S.boardShown === `${f.code}:${f.match.hands}`;
}
function showBoard(on) {
  const f = current();
  if (!f || (f.status !== "hand_over" && f.status !== "finished")) return;
  S.boardShown = on ? `${f.code}:${f.match.hands}` : null;
  renderTable();
  const to = on ? $("sheet-show") : document.querySelector("#sheet-hide");
  if (to) to.focus();
}
function boardButton() {
  return el("button", { type: "button", id: "sheet-hide", class: "secondary", onclick: () => showBoard(true),
                        text: "See the board" });
}

function renderHand(f) {
  const h = f.hand;
  const box = $("hand");
  box.replaceChildren();
  const label = $("hand-name");
  label.textContent = h && f.seat !== null ? `You · ${h.sizes[f.seat] - S.drawQueue.length}` : "";
  label.classList.toggle("to-move", !!(h && f.status === "playing" && h.your_turn));
  if (!h) return;
  const hidden = new Set(S.drawQueue);
  const tiles = h.tiles.filter((t) => !hidden.has(t));
  const playing = f.status === "playing" && h.your_turn && !S.drawQueue.length;
  const room = (box.clientWidth || window.innerWidth) - 16;
  const tw = Math.max(8, Math.min(MAX_HAND_PX, Math.floor(room / Math.max(tiles.length, 1)) - 4,
                                   Math.floor(window.innerHeight / 13)));
  box.style.setProperty("--tw", `${tw}px`);
  for (const t of tiles) {
    const fits = playing && legalOf(h, t);
    const b = el("button", { type: "button", class: "tile hand" + (playing ? (fits ? " lit" : " dim") : "") +
                               (S.selected === t ? " selected" : ""),
                             "data-tile": t, "aria-label": t + (fits ? ", playable" : "") });
    b.append(uprightSvg(t));
    b.addEventListener("click", (e) => { if (S.dragged) { S.dragged = false; return; } tapTile(t, b); });
    b.addEventListener("pointerdown", (e) => startDrag(e, t, b));
    box.append(b);
  }
}

function topText(f) {
  const h = f.hand;
  if (f.status === "waiting") return "Waiting for people to sit down";
  if (f.status === "finished") {
    const w = f.match.winner;
    return w === null ? "The match is a draw" : `${sideName(f, w)} win${sideName(f, w) === "You" ? "" : "s"} the match`;
  }
  if (f.status === "hand_over") {
    const r = f.result;
    const why = r.end === "domino" ? "domino" : r.end === "blocked" ? "the line is blocked" : "the target is reached";
    if (r.winner === null) return `Hand over: nobody wins it (${why})`;
    const who = sideName(f, r.winner);
    return `Hand over: ${who} win${who === "You" ? "" : "s"} the hand (${why})`;
  }
  if (!h) return "";
  if (h.your_turn) {
    if (S.drawQueue.length) return "No tile fits: tap the boneyard to draw";
    if (S.selected) return `${S.selected} fits two ends: tap the lit end`;
    if (h.must_play) return `Your turn: play ${h.must_play}`;
    if (!h.events.length) return "Your turn: lead any tile";
    return "Your turn";
  }
  const s = h.to_move;
  return s === null ? "" : `${seatName(f, s)}'s turn`;
}

function renderTopline() {
  const f = S.tables[S.code];
  if (!f) return;
  const line = $("topline");
  line.classList.toggle("refused", !!S.refused);
  line.textContent = S.refused ? S.refused.text : topText(f);
}

function sheetTiles(tiles) {
  const d = el("div", { class: "tiles" });
  for (const t of tiles) {
    const s = uprightSvg(t);
    s.setAttribute("aria-label", t); s.setAttribute("role", "img"); s.removeAttribute("aria-hidden");
    s.classList.add("tile", "shown");
    d.append(s);
  }
  return d;
}

function renderSheet(f) {
  const r = f.result;
  const h = f.hand;
  const rows = f.seats.map((st, s) => el("div", { class: "sheet-seat", "data-seat": s, "data-kind": seatKind(f, s) },
    el("span", { class: "who", text: seatName(f, s) }), sheetTiles(r.tiles[s]),
    el("span", { class: "pips", text: `${r.pips[s]} pips` })));
  const sides = r.points.map((p, i) => el("li", { text: `${sideName(f, i)}: ${p} this hand, ${f.match.scores[i]} ` +
                                                        `in the match (target ${f.match.target})` }));
  const waitingFor = f.seats.filter((st) => !st.bot && !f.ready.includes(st.seat)).map((st) => seatName(f, st.seat));
  const ready = f.seat !== null && f.ready.includes(f.seat);
  $("sheet").replaceChildren(
    el("h2", { text: `Hand ${h.index + 1}: ${topText(f).replace(/^Hand over: /, "")}` }),
    ...rows,
    el("ul", { class: "list points" }, ...sides),
    el("div", { class: "buttons" },
      ready ? el("span", { class: "muted", text: `Waiting for ${waitingFor.join(", ")}` })
            : el("button", { type: "button", id: "next-hand", onclick: nextHand, text: "NEXT HAND" }),
      boardButton()));
}

function renderResults(f) {
  if (!S.statsAsked) { S.statsAsked = true; S.statsPending = true; send({ type: "stats" }); }
  const m = f.match;
  const rows = m.scores.map((s, i) => el("li", { text: `${sideName(f, i)}: ${s} ${f.rules.points_unit}, ` +
                                                     `${m.hands_won[i]} hand${m.hands_won[i] === 1 ? "" : "s"} won` }));
  const mine = [];
  for (const [variant, levels] of Object.entries(S.stats || {}))
    for (const [level, s] of Object.entries(levels)) mine.push([variant, level, s]);
  $("results").replaceChildren(
    el("h2", { text: topText(f) }),
    el("p", { text: `${m.hands} hand${m.hands === 1 ? "" : "s"} played` }),
    el("ul", { class: "list" }, ...rows),
    el("h2", { text: "Your stats" }),
    // until the stats that count this match arrive, no older table is shown
    S.statsPending ? el("p", { class: "muted", text: "Counting…" })
      : mine.length ? statsTable(mine) : el("p", { class: "muted", text: "No finished match yet." }),
    el("div", { class: "buttons" },
      el("button", { type: "button", id: "new-game", onclick: newGame, text: "NEW GAME" }),
      el("button", { type: "button", onclick: leaveToLobby, text: "Lobby" }),
      boardButton()));
}

// ------------------------------------------------------------------ actions
function current() { return S.tables[S.code]; }

function sendPlay(extra, tile) {
  const f = current();
  if (!f || S.sentAt === f.moves) return;   // one move per position: a second tap waits
  S.sentAt = f.moves;
  S.pending = tile ? document.querySelector(`#hand .tile[data-tile="${tile}"]`) : null;
  send({ type: "play", code: f.code, ...extra });
}

function shake(node) {
  if (!node) return;
  node.classList.remove("shake");
  void node.offsetWidth;
  node.classList.add("shake");
  setTimeout(() => node.classList.remove("shake"), 600);
}

function tapTile(tile, node) {
  const f = current();
  if (!f || !f.hand || S.paused) return;
  const h = f.hand;
  if (f.status !== "playing") return;
  if (!h.your_turn) {
    S.refused = { text: `Not your turn: it is ${seatName(f, h.to_move)}'s turn`, moves: f.moves };
    shake(node); renderTopline(); return;
  }
  if (S.drawQueue.length) {
    S.refused = { text: "No tile fits: tap the boneyard to draw", moves: f.moves };
    shake(node); renderTopline(); return;
  }
  const m = legalOf(h, tile);
  if (!m) {   // the server says why, in the words of the terminal game
    sendPlay({ tile }, tile);
    return;
  }
  if (m.ends.length <= 1) { sendPlay(m.ends.length ? { tile, end: m.ends[0] } : { tile }, tile); return; }
  S.selected = S.selected === tile ? null : tile;
  S.refused = null;
  renderTable();
}

function tapPlace(end) {
  const f = current();
  if (!f || !f.hand || !f.hand.your_turn || S.paused || S.drawQueue.length) return;
  if (!S.selected) {
    if (end === null) return;
    S.refused = { text: "Tap a lit tile first", moves: f.moves };
    renderTopline();
    return;
  }
  const m = legalOf(f.hand, S.selected);
  if (m && m.ends.includes(end)) sendPlay({ tile: S.selected, end }, S.selected);
}

function drawOne() {
  const f = current();
  if (!f || !S.drawQueue.length || S.paused) return;
  S.drawQueue.shift();
  renderTable();
  if (S.drawQueue.length) {
    const b = document.querySelector("#boneyard .tile.back");
    if (b) b.focus();
  } else {
    const t = document.querySelector("#hand .tile.lit");
    if (t) t.focus();
  }
}

function nextHand() {
  const f = current();
  if (f) send({ type: "next", code: f.code });
}

function newGame() {
  leaveToLobby();
  $("open-variant").focus();
}

// dragging a tile to an end
function startDrag(e, tile, node) {
  const f = current();
  if (e.button !== 0 || !f || !f.hand || !f.hand.your_turn || S.drawQueue.length) return;
  const m = legalOf(f.hand, tile);
  if (!m) return;
  const x0 = e.clientX, y0 = e.clientY;
  let ghost = null;
  const move = (ev) => {
    if (!ghost && Math.hypot(ev.clientX - x0, ev.clientY - y0) < 8) return;
    if (!ghost) {
      const r = node.getBoundingClientRect();
      ghost = el("div", { class: "ghost" });
      ghost.style.width = `${r.width}px`; ghost.style.height = `${r.height}px`;
      ghost.append(uprightSvg(tile));
      document.body.append(ghost);
      node.classList.add("dragging");
      S.selected = m.ends.length > 1 ? tile : null;
      renderBoard(f);
    }
    ghost.style.left = `${ev.clientX - ghost.offsetWidth / 2}px`;
    ghost.style.top = `${ev.clientY - ghost.offsetHeight / 2}px`;
    document.querySelectorAll("#board .place.drop").forEach((p) => p.classList.remove("drop"));
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const pl = under && under.closest(".place");
    if (pl) pl.classList.add("drop");
  };
  const up = (ev) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    if (!ghost) return;
    ghost.remove();
    node.classList.remove("dragging");
    S.dragged = true;
    setTimeout(() => { S.dragged = false; }, 0);
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const pl = under && under.closest(".place");
    const onBoard = under && under.closest("#board");
    let end = pl ? pl.dataset.end : null;
    if (end === "lead") end = null;
    if (m.ends.length === 0 && onBoard) { sendPlay({ tile }, tile); return; }
    if (end && m.ends.includes(end)) { sendPlay({ tile, end }, tile); return; }
    if (!end && onBoard && m.ends.length === 1) { sendPlay({ tile, end: m.ends[0] }, tile); return; }
    S.selected = null;
    renderBoard(f); renderHand(f);
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
}

// sound: a short click when a tile is played
let audio = null;
function beep() {
  if (!S.sound || S.paused) return;
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = 520; g.gain.value = 0.04;
    o.connect(g); g.connect(audio.destination);
    o.start(); o.stop(audio.currentTime + 0.05);
  } catch (err) { /* no sound here */ }
}

// the keyboard: Tab and Enter reach everything; these keys are shortcuts
function onKey(e) {
  if ($("table").hidden || e.target.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
  const f = current();
  const k = e.key.toLowerCase();
  if (e.key === "Escape") {
    if (S.selected) { S.selected = null; renderTable(); } else openMenu();
    e.preventDefault(); return;
  }
  if (!f) return;
  if (k === "n" && f.status === "hand_over") { nextHand(); return; }
  if (k === "s" && (f.status === "hand_over" || f.status === "finished")) { showBoard(!boardShown(f)); return; }
  if (k === "b" && S.drawQueue.length) { drawOne(); return; }
  if (k === "p") { togglePause(); return; }
  if (S.selected && END_KEYS[k]) { tapPlace(END_KEYS[k]); return; }
  const tiles = [...document.querySelectorAll("#hand .tile")];
  if (/^[1-9]$/.test(e.key) && tiles[+e.key - 1]) { tiles[+e.key - 1].focus(); tiles[+e.key - 1].click(); return; }
  if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    const i = tiles.indexOf(document.activeElement);
    const j = i < 0 ? 0 : (i + (e.key === "ArrowRight" ? 1 : tiles.length - 1)) % tiles.length;
    if (tiles[j]) tiles[j].focus();
    e.preventDefault();
  }
}

// the menu
function openMenu() {
  $("menu-sound").textContent = S.sound ? "Sound off" : "Sound on";
  $("menu-pause").textContent = S.paused ? "Resume" : "Pause";
  $("menu").showModal();
}
function togglePause() {
  S.paused = !S.paused;
  $("paused").hidden = !S.paused;
  if (!S.paused) renderTable();
  else $("resume-button").focus();
}

// ------------------------------------------------------------------ start
async function start() {
  try {
    const defs = await (await fetch("api/tiles.svg")).text();
    $("tile-defs").innerHTML = defs;
  } catch (err) { /* the tiles' pips are missing; the page still plays */ }
  try {
    const p = await (await fetch("api/presets")).json();
    S.presets = p.presets; S.levels = p.levels; S.targets = p.targets || {};
    fillForm();
  } catch (err) { /* the open form stays empty */ }
  try { await fetch("api/me"); } catch (err) { /* the websocket sets the cookie too */ }
  $("name-form").addEventListener("submit", (e) => {
    e.preventDefault(); send({ type: "hello", name: $("name-input").value });
  });
  $("open-form").addEventListener("submit", (e) => {
    e.preventDefault();
    S.selected = null; S.drawQueue = [];
    const target = $("open-target").value.trim();
    send({ type: "open", variant: $("open-variant").value, players: +$("open-players").value,
           level: $("open-level").value, alone: $("open-alone").checked, fill: $("open-fill").checked,
           listed: $("open-listed").checked, ...(target ? { target: Number(target) } : {}) });
  });
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const code = $("join-code").value.trim();
    S.code = code; location.hash = `t=${code}`;
    send({ type: "join", code });
  });
  $("lobby-refresh").addEventListener("click", () => send({ type: "lobby" }));
  $("menu-button").addEventListener("click", openMenu);
  $("menu-pause").addEventListener("click", () => { $("menu").close(); togglePause(); });
  $("resume-button").addEventListener("click", togglePause);
  $("menu-new").addEventListener("click", () => { $("menu").close(); newGame(); });
  $("menu-lobby").addEventListener("click", () => { $("menu").close(); leaveToLobby(); });
  $("menu-sound").addEventListener("click", () => {
    S.sound = !S.sound;
    localStorage.setItem("dai-sound", S.sound ? "on" : "off");
    $("menu-sound").textContent = S.sound ? "Sound off" : "Sound on";
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", () => { if (S.code && !$("table").hidden) renderTable(); });
  setInterval(() => { if (!$("lobby").hidden) send({ type: "lobby" }); }, 4000);
  connect();
}

window.dai = { state: S, lineLayout, fitLayout, current };
start();
