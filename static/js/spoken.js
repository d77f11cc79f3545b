// The table in words for people who listen to it (issue 50): every move the table's redraws
// bring (the hidden list `[data-spoken]` in #table, each line with its step) is said once in the
// page's live region, then what the person's turn asks of them. Keys read the rest at any time:
// A the auction, S the score, T the trick on the table (L opens the last trick, js/table.js).
(function () {
  const region = document.getElementById("table-announcer");
  if (!region) return;
  let said = null; // {deal, step} of the last line said
  let cueSaid = "";

  function say(text) {
    if (!text) return;
    const line = document.createElement("p");
    line.textContent = text;
    region.appendChild(line);
    while (region.childElementCount > 20) region.removeChild(region.firstElementChild);
  }

  function hear() {
    const table = document.getElementById("table");
    const list = table && table.querySelector("[data-spoken]");
    if (!list) return;
    const deal = table.dataset.deal;
    if (document.body.classList.contains("text-table")) {
      // The text table shows the moves and the turn as the table's log: read like the rest.
      table.querySelectorAll("[data-spoken], [data-turn-cue]").forEach((el) => el.removeAttribute("aria-hidden"));
    }
    const lines = Array.from(list.querySelectorAll("li[data-step]"));
    if (said === null) {
      // The page has just opened: what happened before is not news; the turn is.
      said = { deal: deal, step: Number(table.dataset.step || 0) };
    } else {
      const from = said.deal === deal ? said.step : 0;
      // A new deal: the last one's lines go. What was played then is no news now, and a card
      // named there may lie in someone's hand in this deal (tests/hidden.py reads the page).
      if (said.deal !== deal) region.replaceChildren();
      for (const line of lines) {
        if (Number(line.dataset.step) > from) say(line.textContent);
      }
      said = { deal: deal, step: Number(table.dataset.step || 0) };
    }
    const cue = table.querySelector("[data-turn-cue]");
    const text = cue ? cue.textContent : "";
    if (text && text !== cueSaid) say(text);
    cueSaid = text;
  }

  function words(el) {
    return el.textContent.replace(/\s+/g, " ").trim();
  }

  // A part of the table read as a sentence: its items one by one, never run together
  // ("East 2, You Pass, West 3"), a card by its name rather than its corner's symbols.
  function reading(found) {
    const items = Array.from(found.querySelectorAll("li, .chip"));
    return (items.length ? items.map(words).join(", ") : words(found)) + ".";
  }

  function read(selector, empty) {
    const found = document.querySelector(selector);
    say(found ? reading(found) : empty);
  }

  function readTrick() {
    const cards = Array.from(document.querySelectorAll("#table .trick-live .trick-card"));
    const done = document.querySelector("#table .trick-done");
    const shown = cards.length ? cards : Array.from(done ? done.querySelectorAll(".trick-card") : []);
    if (!shown.length) return say("No cards on the table.");
    const played = shown.map(function (card) {
      const face = card.querySelector("[aria-label]");
      return (card.getAttribute("title") || "") + ": " + (face ? face.getAttribute("aria-label") : words(card));
    });
    say(played.join(", ") + "." + (!cards.length && done ? " " + done.getAttribute("aria-label") + "." : ""));
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    const key = event.key.toLowerCase();
    if (key === "a") read("#table .auction-list", "No calls yet.");
    else if (key === "s") read("#table .scoreboard", "No score yet.");
    else if (key === "t") readTrick();
  });

  new MutationObserver(hear).observe(document.body, { childList: true, subtree: true });
  hear();
})();
