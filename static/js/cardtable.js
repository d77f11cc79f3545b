// What makes the live table read like a card table, across htmx swaps of #table:
//  - a completed trick stays in view for a moment even when the next lead arrives at once
//    (bots play quickly); the server goes on, and any click or key of the player ends the wait;
//  - the discard step counts the chosen cards and allows the discard once the count is right;
//  - a card played travels from its seat to the trick, and a won trick, as it leaves the felt,
//    glides to its winner's side.
(function () {
  "use strict";

  // The hold is kept on <html>, which no swap replaces: kept on #table, htmx's settling
  // copied the new table's classes over it, so the hold was mostly lost at once and now and then
  // left the new lead hidden (issue 28). It never hides a lead the player must answer: on their
  // turn the table shows what is on it, and the trick just won stays in the "Last trick" panel.
  const HOLD_MS = 1800;
  const root = document.documentElement;
  let seen = null; // "deal:tricks done" of the table last on screen
  let holdTimer = null;

  function release() {
    clearTimeout(holdTimer);
    holdTimer = null;
    root.removeAttribute("data-hold-trick");
    gatherClearedTrick();
  }

  function holdCompletedTrick() {
    const table = document.getElementById("table");
    if (!table || table.dataset.tricksDone === undefined) return release();
    const deal = table.dataset.deal;
    const done = Number(table.dataset.tricksDone);
    const key = deal + ":" + done;
    const justCompleted = seen !== null && key !== seen && done > 0 && deal === seen.split(":")[0];
    seen = key;
    if (table.classList.contains("table-my-turn") || table.querySelector(".trick-done-now")) {
      return release(); // the player's turn, or the finished trick is on the felt anyway
    }
    if (justCompleted && table.querySelector(".trick-done")) {
      root.setAttribute("data-hold-trick", "");
      clearTimeout(holdTimer);
      holdTimer = setTimeout(release, HOLD_MS);
    }
  }

  function countDiscards() {
    const form = document.querySelector("#table .discard-form");
    if (!form) return;
    const chosen = form.querySelectorAll('input[name="cards"]:checked').length;
    const exact = Number(form.dataset.discardExact || 0);
    const line = form.querySelector("[data-discard-count]");
    const submit = form.querySelector("[data-discard-submit]");
    if (exact) {
      line.textContent = chosen + " of " + exact + " chosen" + (chosen > exact ? ": too many" : "");
      line.classList.toggle("discard-count-done", chosen === exact);
      submit.disabled = chosen !== exact;
    } else {
      line.textContent = chosen ? chosen + " chosen: you draw as many" : "None chosen: you keep your hand";
    }
  }

  // Against bots, the next deal can follow by itself once the result has been read (a choice
  // kept in this browser). Any click or key on the page in the meantime cancels it.
  const AUTO_DEAL_KEY = "setback.autoDeal";
  const AUTO_DEAL_MS = 5000;
  let autoDealTimer = null;

  function autoDeal() {
    clearTimeout(autoDealTimer);
    const box = document.querySelector("#table [data-auto-deal]");
    if (!box) return;
    let on = false;
    try { on = localStorage.getItem(AUTO_DEAL_KEY) === "1"; } catch (e) { on = false; }
    box.checked = on;
    if (!on) return;
    autoDealTimer = setTimeout(function () {
      const next = document.querySelector("#table [data-next-deal]");
      if (next) next.click();
    }, AUTO_DEAL_MS);
  }

  document.addEventListener("change", function (event) {
    if (!event.target.matches || !event.target.matches("[data-auto-deal]")) return;
    try { localStorage.setItem(AUTO_DEAL_KEY, event.target.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    autoDeal();
  });

  document.addEventListener("click", function (event) {
    if (!(event.target.matches && event.target.matches("[data-auto-deal]"))) clearTimeout(autoDealTimer);
  }, true);
  document.addEventListener("keydown", function () { clearTimeout(autoDealTimer); }, true);

  // A card played travels from its seat (the player's own from their hand) to its place on the
  // trick, in TRAVEL_MS, with the Web Animations API on the card's own element: nothing waits
  // for it (a swap mid-flight just shows the card in place, clicks are answered as ever), and a
  // system that asks for less motion gets none, nor does the text table.
  const TRAVEL_MS = 250;
  const lessMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  let cardsOnFelt = null; // the trick cards last on screen, "deal:card"; null before the first table

  function travelFrom(table, card) {
    const seat = table.querySelector('.seat[data-seat="' + card.dataset.from + '"]');
    const place = seat || table.querySelector(".me .hand") || table.querySelector(".me");
    return place ? place.getBoundingClientRect() : null;
  }

  function moveNewCards() {
    const table = document.getElementById("table");
    if (!table) { cardsOnFelt = null; return; }
    const now = new Set();
    table.querySelectorAll(".trick-live .trick-card").forEach(function (card) {
      const face = card.querySelector(".card-face");
      const key = table.dataset.deal + ":" + (face ? face.getAttribute("aria-label") : "");
      now.add(key);
      if (cardsOnFelt === null || cardsOnFelt.has(key) || !card.animate || (lessMotion && lessMotion.matches)) return;
      if (document.body.classList.contains("text-table")) return; // a list, where nothing travels
      const from = travelFrom(table, card);
      const to = card.getBoundingClientRect();
      if (!from || !to.width) return; // held out of view (the trick before is still shown)
      const dx = Math.round(from.left + from.width / 2 - (to.left + to.width / 2));
      const dy = Math.round(from.top + from.height / 2 - (to.top + to.height / 2));
      card.animate(
        [{ transform: "translate(calc(-50% + " + dx + "px), calc(-50% + " + dy + "px))" }, { transform: "translate(-50%, -50%)" }],
        { duration: TRAVEL_MS, easing: "ease-out" }
      );
    });
    cardsOnFelt = now;
  }

  // A won trick goes to its winner: when the completed trick in view leaves the felt (the next
  // card is led, the hold ends), a copy of its cards glides toward the winner's side and fades,
  // in GATHER_MS. The copy lies over the table as it already is and takes no clicks (.trick has
  // no pointer events), so nothing waits for it; the next swap simply drops it. The winner's side
  // is where the winning card lies, seen from the middle of the felt: each card is played on its
  // player's side of the trick. The point the cards head for (window pixels) is kept on the copy
  // as data-toward, for the browser tests.
  const GATHER_MS = 280;
  let trickInView = null; // the completed trick last in view: { deal, key, cards (copies) }

  function completedTrickInView(table) {
    const done = table && table.querySelector(".trick-done");
    return done && done.getClientRects().length ? done : null;
  }

  function gatherClearedTrick() {
    const table = document.getElementById("table");
    const done = completedTrickInView(table);
    const key = done ? table.dataset.deal + ":" + done.dataset.trickDone : null;
    const left = trickInView;
    trickInView = done ? {
      deal: table.dataset.deal,
      key: key,
      cards: Array.from(done.querySelectorAll(".trick-card"), function (card) { return card.cloneNode(true); }),
    } : null;
    // A new deal starts on a clear felt: the last deal's final trick just goes.
    if (left && left.key !== key && table && left.deal === table.dataset.deal) gather(table, left.cards);
  }

  function centreOf(rect) {
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }

  function gather(table, cards) {
    const felt = table.querySelector(".felt");
    if (!felt || !felt.animate || (lessMotion && lessMotion.matches)) return;
    const pile = document.createElement("div");
    pile.className = "trick trick-gathered";
    pile.setAttribute("aria-hidden", "true");
    cards.forEach(function (card) { pile.appendChild(card); });
    felt.insertBefore(pile, felt.querySelector(".trick-live")); // under the trick being played
    const box = felt.getBoundingClientRect();
    const middle = centreOf(box);
    const won = pile.querySelector(".trick-won");
    const wonAt = won ? centreOf(won.getBoundingClientRect()) : middle;
    const dx = wonAt.x - middle.x;
    const dy = wonAt.y - middle.y;
    if (!box.width || Math.hypot(dx, dy) < 1) { pile.remove(); return; }
    // Most of the way from the middle to the felt's edge, on the winner's side.
    const reach = 0.85 * Math.min(dx ? box.width / 2 / Math.abs(dx) : Infinity, dy ? box.height / 2 / Math.abs(dy) : Infinity);
    const toward = { x: middle.x + dx * reach, y: middle.y + dy * reach };
    pile.dataset.toward = Math.round(toward.x) + "," + Math.round(toward.y);
    let last = null;
    pile.querySelectorAll(".trick-card").forEach(function (card) {
      const at = centreOf(card.getBoundingClientRect());
      const shift = "translate(calc(-50% + " + Math.round(toward.x - at.x) + "px), calc(-50% + " + Math.round(toward.y - at.y) + "px)) scale(.6)";
      last = card.animate(
        [{ transform: "translate(-50%, -50%)", opacity: 1 }, { transform: shift, opacity: 0 }],
        { duration: GATHER_MS, easing: "ease-in", fill: "forwards" }
      );
    });
    const clear = function () { pile.remove(); };
    if (last) last.finished.then(clear, clear); else clear();
  }

  function afterSwap() {
    moveNewCards();
    holdCompletedTrick();
    gatherClearedTrick();
    countDiscards();
    autoDeal();
  }

  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("#table .discard-form")) countDiscards();
  });
  // The player wants to go on: show the table as it is now.
  document.addEventListener("click", function (event) {
    if (holdTimer && event.target.closest && event.target.closest("#table")) release();
  }, true);
  document.addEventListener("keydown", function () { if (holdTimer) release(); }, true);

  document.addEventListener("DOMContentLoaded", afterSwap);
  document.addEventListener("htmx:afterSettle", afterSwap);
  document.addEventListener("htmx:oobAfterSwap", afterSwap);
})();
