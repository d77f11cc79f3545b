// The offline page: a match against bots that runs in this browser, and the deals that come home.
//
//   - a service worker (/offline/sw.js) caches this page, the Pyodide runtime and the engine's
//     wheel, so that the page opens and plays with no network;
//   - the match runs in a module Web Worker (engine-worker.mjs) with the site's own engine; this
//     script only asks it for moves and draws what it answers (render.js);
//   - the match in progress is kept in localStorage after every move (a reload resumes it), and
//     each finished deal in IndexedDB until the site has checked and stored it. Signed in and
//     online, the page sends them home one by one, in order, and shows how each check went.
(function () {
  "use strict";

  const app = document.getElementById("offline-app");
  if (!app) return;
  const render = window.SetbackOfflineRender;
  const config = app.dataset;
  const tableEl = document.getElementById("table");
  const coachEl = document.getElementById("coach-panel");
  const startEl = document.getElementById("offline-start");
  const areaEl = document.getElementById("offline-table-area");
  const form = document.getElementById("offline-new");
  const $ = (selector) => app.querySelector(selector);

  const MATCH_KEY = "setback.offline.match";
  const COACH_KEY = "setback.offline.coach";
  const params = new URLSearchParams(location.search);
  // A bot waits this long before each move so a person can follow (the site's BOT_PACE_SECONDS).
  const BOT_PACE_MS = params.has("pace") ? Number(params.get("pace")) : 700;
  const timings = (window.__offlineTimings = { start: performance.now() });

  let view = null; // the table on screen (games/offline/worker.py: table_view)
  let busy = false; // a call to the engine is under way: further clicks wait for it
  let lastError = "";

  // --- The engine in its worker -------------------------------------------------------------
  let worker = null;
  let nextId = 1;
  const pending = new Map();

  function engine(call, ...args) {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, call, args });
    });
  }

  function startWorker() {
    worker = new Worker(config.worker, { type: "module" });
    worker.onmessage = (event) => {
      const { id, result, error } = event.data;
      const waiting = pending.get(id);
      if (!waiting) return;
      pending.delete(id);
      if (error) waiting.reject(new Error(error));
      else waiting.resolve(result);
    };
    worker.onerror = (event) => setEngineState("The engine stopped: " + (event.message || "an error") + ". Reload the page.", true);
    return engine("boot", { runtime: config.runtime, wheel: config.wheel });
  }

  function setEngineState(text, bad) {
    const chip = $("[data-engine-state]");
    chip.textContent = text;
    chip.classList.toggle("chip-bad", Boolean(bad));
  }

  // --- Storage --------------------------------------------------------------------------------
  function loadMatch() {
    try { return JSON.parse(localStorage.getItem(MATCH_KEY) || "null"); } catch (e) { return null; }
  }
  function keepMatch(saved, choices) {
    const kept = loadMatch() || {};
    localStorage.setItem(MATCH_KEY, JSON.stringify({ saved, choices: choices || kept.choices }));
  }

  // The finished deals waiting to come home (and how their check went), in IndexedDB.
  const db = new Promise((resolve, reject) => {
    const request = indexedDB.open("setback-offline", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("outbox", { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  async function store(mode, work) {
    const database = await db;
    return new Promise((resolve, reject) => {
      const tx = database.transaction("outbox", mode);
      const request = work(tx.objectStore("outbox"));
      tx.oncomplete = () => resolve(request && request.result);
      tx.onerror = () => reject(tx.error);
    });
  }
  const outboxAll = () => store("readonly", (s) => s.getAll());
  const outboxPut = (entry) => store("readwrite", (s) => s.put(entry));

  function newId() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function newSeed() {
    const words = crypto.getRandomValues(new Uint32Array(2));
    return (words[0] & 0x1fffff) * 0x100000000 + words[1]; // 53 bits: exact in JavaScript
  }

  // --- Drawing --------------------------------------------------------------------------------
  function settled() {
    // js/table.js and js/cardtable.js listen for htmx's swaps on the live table.
    document.body.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true }));
  }

  // The person's own seat goes by their name, as on the live table ("alice (you)"): the name
  // of whoever was signed in when the page was last loaded from the site (the service worker
  // keeps the newest copy), or told by the site since. Signed out, just "You".
  let playerName = config.player || "";
  function rememberPlayer(name) {
    if (name) playerName = name; // shown from the next move on
  }
  function named(table) {
    const name = playerName || "You";
    table.me_seat.name = name;
    for (const seat of table.seats) if (seat.is_me) seat.name = name;
    table.me_unnamed = !playerName;
    return table;
  }

  function show(answer, error) {
    view = named(answer.table);
    lastError = error || "";
    render.renderTable(tableEl, view, lastError);
    startEl.hidden = true;
    areaEl.hidden = false;
    $("[data-keyboard-help]").hidden = false;
    $("[data-sound-form]").hidden = false; // js/sounds.js
    $("[data-new-match]").hidden = false;
    if (timings.playable === undefined) timings.playable = performance.now();
    settled();
    coach();
  }

  // --- The coach ------------------------------------------------------------------------------
  const coachSwitch = $("[data-coach-switch]");
  function coachOn() { return localStorage.getItem(COACH_KEY) === "1"; }
  coachSwitch.checked = coachOn();
  $("[data-coach-label]").textContent = coachOn() ? "Coach on" : "Coach off";
  coachSwitch.addEventListener("change", () => {
    localStorage.setItem(COACH_KEY, coachSwitch.checked ? "1" : "0");
    $("[data-coach-label]").textContent = coachSwitch.checked ? "Coach on" : "Coach off";
    coach();
  });

  async function coach() {
    if (!view) return;
    if (!coachOn()) {
      render.renderCoach(coachEl, { state: "off" }, false);
      return;
    }
    if (!view.my_turn) {
      render.renderCoach(coachEl, { state: "waiting", version: view.version }, true);
      return;
    }
    const version = view.version;
    render.renderCoach(coachEl, { state: "thinking", version }, true);
    const asked = performance.now();
    const panel = JSON.parse(await engine("coach"));
    (timings.coach = timings.coach || []).push({ phase: view.phase, ms: performance.now() - asked });
    if (view && view.version === version && coachOn()) render.renderCoach(coachEl, panel, true);
  }

  // --- Playing --------------------------------------------------------------------------------
  async function play(call, ...args) {
    if (busy) return;
    busy = true;
    try {
      const phase = view && view.phase;
      const asked = performance.now();
      const answer = JSON.parse(await engine(call, ...args));
      // What a decision costs here, for scripts/bench_offline.py (the bots' search dominates).
      if (call === "bot") (timings.bots = timings.bots || []).push({ phase, ms: performance.now() - asked });
      if (answer.saved) keepMatch(answer.saved);
      if (answer.table) show(answer, answer.error);
      if (answer.finished) await dealFinished();
    } catch (error) {
      show({ table: view }, "The engine refused: " + error.message);
    } finally {
      busy = false;
    }
    botsPlay();
  }

  let botTimer = null;
  function botsPlay() {
    clearTimeout(botTimer);
    if (!view) return;
    if (view.result && view.result.thrown_in && !view.match_over) {
      // As on the site: a hand everyone passed is dealt again by itself, after a moment.
      botTimer = setTimeout(nextDeal, BOT_PACE_MS * 3);
      return;
    }
    if (!view.bot_to_act || view.result) return;
    botTimer = setTimeout(() => play("bot"), BOT_PACE_MS);
  }

  function nextDeal() {
    // Only from a finished deal: a click and the timer of a thrown-in hand may both ask.
    if (view && view.result && !view.match_over) play("next_deal");
  }

  // Who was signed in when the page last knew (its session answer): each deal played is tied to
  // that account, and goes home under it only (the site refuses it for anyone else).
  const OWNER_KEY = "setback-offline-owner";
  function knownOwner() {
    try { return JSON.parse(localStorage.getItem(OWNER_KEY) || "null"); } catch (error) { return null; }
  }
  function noteOwner(who) {
    if (who.signed_in) localStorage.setItem(OWNER_KEY, JSON.stringify({ token: who.outbox_token, username: who.username }));
    else localStorage.removeItem(OWNER_KEY);
  }

  async function dealFinished() {
    const id = newId();
    const envelope = JSON.parse(await engine("envelope", id));
    await outboxPut({ id, match: envelope.match, number: envelope.number, envelope, status: "waiting", reason: "", at: Date.now(), owner: knownOwner() });
    showOutbox();
    sync();
  }

  tableEl.addEventListener("submit", (event) => {
    event.preventDefault();
    const kind = event.target.dataset.offlineForm;
    if (kind === "act" && event.submitter) play("act", event.submitter.value);
    else if (kind === "discard") {
      const cards = Array.from(event.target.querySelectorAll('input[name="cards"]:checked'), (box) => box.value);
      play("discard", JSON.stringify(cards));
    } else if (kind === "next") nextDeal();
  });
  tableEl.addEventListener("click", (event) => {
    if (event.target.closest("[data-play-again]")) newMatch(loadMatch().choices);
  });
  $("[data-new-match]").addEventListener("click", () => {
    if (!view || view.match_over || confirm("Leave this match and start another? Its finished deals still come home.")) {
      localStorage.removeItem(MATCH_KEY);
      view = null;
      areaEl.hidden = true;
      startEl.hidden = false;
      $("[data-new-match]").hidden = true;
    }
  });

  function formChoices() {
    const data = new FormData(form);
    const switches = Array.from(form.querySelectorAll('input[type="checkbox"]:checked'), (box) => box.name);
    return {
      preset: data.get("preset"),
      level: data.get("bot_level"),
      seating: data.get("seating") || "",
      players: data.get("players") || "",
      target: data.get("target") || "",
      low_to: data.get("low_to") || "",
      switches,
    };
  }

  async function newMatch(choices) {
    const answer = JSON.parse(await engine("start", JSON.stringify({
      choices, level: choices.level, seed: newSeed(), key: newId(), engine: config.engine,
    })));
    if (answer.error) {
      const line = $("[data-start-error]");
      line.textContent = answer.error;
      line.hidden = false;
      return;
    }
    $("[data-start-error]").hidden = true;
    keepMatch(answer.saved, choices);
    show(answer);
    botsPlay();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    newMatch(formChoices());
  });

  // --- Coming home ----------------------------------------------------------------------------
  const net = $("[data-net]");
  function showNetwork() {
    net.textContent = navigator.onLine ? "Online" : "Offline: playing in this browser";
    net.classList.toggle("chip-bad", !navigator.onLine);
  }
  window.addEventListener("online", () => { showNetwork(); sync(); });
  window.addEventListener("offline", showNetwork);

  const STATUS_WORDS = {
    waiting: "waiting to go home",
    checking: "being checked",
    accepted: "in your history",
    refused: "refused",
  };

  async function showOutbox(note) {
    const entries = (await outboxAll()).sort((a, b) => a.at - b.at);
    const box = $("[data-outbox]");
    box.hidden = entries.length === 0;
    const list = $("[data-outbox-list]");
    list.innerHTML = entries.slice(-20).reverse().map((entry) => {
      const link = entry.replay_url ? ' <a href="' + render.esc(entry.replay_url) + '">Replay</a>' : "";
      return '<li class="offline-outbox-item outbox-' + entry.status + '" data-outbox-item="' + render.esc(entry.id) + '" data-status="' + entry.status + '">' +
        "Deal " + entry.number + " · " + new Date(entry.at).toLocaleString() + ': <strong>' + STATUS_WORDS[entry.status] + "</strong>" + link +
        (entry.reason ? '<span class="small outbox-reason"> ' + render.esc(entry.reason) + "</span>" : "") + "</li>";
    }).join("");
    const waiting = entries.filter((e) => e.status === "waiting" || e.status === "checking").length;
    const home = $("[data-home]");
    home.hidden = waiting === 0;
    home.textContent = waiting + " deal" + (waiting === 1 ? "" : "s") + " to bring home";
    if (note !== undefined) $("[data-outbox-note]").innerHTML = note;
  }

  let syncing = false;
  async function sync() {
    if (syncing || !navigator.onLine) return;
    syncing = true;
    try {
      const entries = (await outboxAll()).filter((e) => e.status === "waiting" || e.status === "checking").sort((a, b) => (a.match === b.match ? a.number - b.number : a.at - b.at));
      if (!entries.length) return;
      const who = await (await fetch(config.session, { credentials: "same-origin" })).json();
      noteOwner(who);
      if (!who.signed_in) {
        await showOutbox('<a href="' + render.esc(who.login_url) + '">Log in</a> to bring these deals home to your history.');
        return;
      }
      rememberPlayer(who.username);
      await showOutbox("Signed in as " + render.esc(who.username) + ": deals go home one by one, each checked by the site.");
      const blocked = new Set(); // matches whose earlier deal is not home yet
      for (const entry of entries) {
        if (blocked.has(entry.match)) continue;
        // By name: the token is signed with the time (django.core.signing.dumps), so two answers
        // for one account differ; the site checks the token itself (services.check_outbox_token).
        if (entry.owner && entry.owner.username !== who.username) {
          // Played signed in as someone else: it waits here for them.
          entry.reason = "Played signed in as " + entry.owner.username + ": sign in as them to bring it home.";
          await outboxPut(entry);
          blocked.add(entry.match);
          continue;
        }
        const settled = await sendHome(entry, who.csrf_token);
        if (!settled) blocked.add(entry.match);
      }
    } catch (error) {
      // The network went away mid-way: the next "online" (or the next deal) tries again.
    } finally {
      syncing = false;
      showOutbox();
    }
  }

  // Sends one deal and waits for its check. True once it is settled (accepted or refused).
  async function sendHome(entry, csrf) {
    const response = await fetch(config.upload, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, "X-Setback-Outbox": (entry.owner && entry.owner.token) || "" },
      body: JSON.stringify(entry.envelope),
    });
    const answer = await response.json().catch(() => ({ error: "The site answered " + response.status + "." }));
    if (response.status === 400 || response.status === 413) {
      // Refused for good: this record can never be stored (the reason says why).
      entry.status = "refused";
      entry.reason = answer.error;
      await outboxPut(entry);
      return true;
    }
    if (!response.ok) {
      // Not yet: an earlier deal is being checked, too many at once, signed out, the site busy.
      entry.reason = answer.error || "";
      await outboxPut(entry);
      if (response.status === 409 || response.status === 429 || response.status >= 500) setTimeout(sync, 5000);
      return false;
    }
    let state = answer;
    while (state.status === "checking") {
      entry.status = "checking";
      entry.reason = "";
      await outboxPut(entry);
      showOutbox();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const poll = await fetch(config.upload + encodeURIComponent(entry.id) + "/", { credentials: "same-origin" });
      state = await poll.json();
    }
    entry.status = state.status;
    entry.reason = state.reason || "";
    entry.replay_url = state.replay_url || "";
    await outboxPut(entry);
    return true;
  }

  // --- Start ----------------------------------------------------------------------------------
  // The engine starts once the service worker controls the page: its worker then fetches the
  // runtime through it, from the cache the service worker has just filled, instead of a second
  // time from the network on a first visit. Without one (an old browser, a failed install) the
  // page goes on after a while and plays online only.
  async function serviceWorkerInCharge() {
    if (!("serviceWorker" in navigator)) return;
    try {
      await navigator.serviceWorker.register(config.serviceWorker, { scope: config.scope });
    } catch (error) {
      setEngineState("This browser will not keep the page for offline use: " + error.message, true);
      return;
    }
    if (navigator.serviceWorker.controller) return;
    setEngineState("Keeping the page for offline use…");
    await new Promise((resolve) => {
      navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true });
      setTimeout(resolve, 60000);
    });
  }

  async function main() {
    showNetwork();
    showOutbox();
    if (navigator.onLine) fetch(config.session, { credentials: "same-origin" }).then((r) => r.json()).then(noteOwner).catch(() => {});
    if (config.runtimeReady !== "true") return;
    await serviceWorkerInCharge();
    try {
      const booted = await startWorker();
      timings.engine = performance.now();
      timings.boot = booted;
      setEngineState("Engine ready (" + ((timings.engine - timings.start) / 1000).toFixed(1) + " s)");
    } catch (error) {
      setEngineState("The engine could not start: " + error.message, true);
      return;
    }
    form.querySelector("[data-deal-me-in]").disabled = false;
    const kept = loadMatch();
    if (kept && kept.saved) {
      try {
        const answer = JSON.parse(await engine("restore", JSON.stringify(kept.saved), config.engine));
        show(answer);
        botsPlay();
      } catch (error) {
        localStorage.removeItem(MATCH_KEY);
        startEl.hidden = false;
      }
    } else {
      startEl.hidden = false;
    }
    sync();
    setInterval(sync, 30000);
  }
  main();
})();
