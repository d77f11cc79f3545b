// Keyboard play for the table, and small comforts that survive htmx swaps of #table.
//   1-9    act with the nth legal action (a call, a suit, a card; toggles a discard choice)
//   ← →    move between legal actions; Enter or Space acts with the focused one
//   L      show or hide the last trick;  N  next deal
(function () {
  "use strict";

  let lastTrickOpen = false;
  let focusedIndex = -1;
  let tableSocket = null; // the table's websocket, once open (see the moves at the end)

  function actions() {
    return Array.from(document.querySelectorAll("#table [data-action]"));
  }

  function typing(event) {
    const el = event.target;
    return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type === "text"));
  }

  function focusAt(index) {
    const list = actions();
    if (!list.length) return;
    focusedIndex = (index + list.length) % list.length;
    list[focusedIndex].focus();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
    const list = actions();
    if (/^[1-9]$/.test(event.key)) {
      const target = list[Number(event.key) - 1];
      if (target) {
        event.preventDefault();
        focusedIndex = Number(event.key) - 1;
        target.focus();
        target.click();
      }
    } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      if (!list.length) return;
      event.preventDefault();
      const current = list.indexOf(document.activeElement);
      const start = current >= 0 ? current : (event.key === "ArrowRight" ? -1 : 0);
      focusAt(start + (event.key === "ArrowRight" ? 1 : -1));
    } else if (event.key === "l" || event.key === "L") {
      const panel = document.getElementById("last-trick-panel");
      if (panel) {
        panel.open = !panel.open;
        lastTrickOpen = panel.open;
      }
    } else if (event.key === "n" || event.key === "N") {
      const next = document.querySelector("#table [data-next-deal]");
      if (next) next.click();
    }
  });

  document.addEventListener("toggle", function (event) {
    if (event.target.id === "last-trick-panel") lastTrickOpen = event.target.open;
  }, true);

  // After any swap of the table: keep the last trick open if it was, and keep keyboard focus
  // on the same position so a player can keep pressing Enter or the arrows.
  function restore() {
    const panel = document.getElementById("last-trick-panel");
    if (panel && lastTrickOpen) panel.open = true;
    const list = actions();
    if (focusedIndex >= 0 && list.length) {
      list[Math.min(focusedIndex, list.length - 1)].focus({ preventScroll: true });
    }
  }
  document.body.addEventListener("htmx:afterSettle", restore);
  document.body.addEventListener("htmx:oobAfterSwap", restore);

  // The table's websocket comes back by itself after a server restart or a network drop: the
  // next try within 0.5-1 s, then doubling, never more than 4 s apart, each delay jittered so
  // that a restarted server is not hit by every page at once. On connecting, the server sends
  // the table as it is now, so the page shows the latest position without a reload.
  htmx.config.wsReconnectDelay = function (retries) {
    const ceiling = Math.min(4000, 1000 * Math.pow(2, retries));
    return ceiling / 2 + Math.random() * ceiling / 2;
  };

  function reconnectingNotice(show) {
    const socket = document.querySelector(".table-socket");
    if (!socket) return;
    let notice = document.getElementById("socket-reconnecting");
    if (show && !notice) {
      notice = document.createElement("p");
      notice.id = "socket-reconnecting";
      notice.className = "flash flash-error";
      notice.setAttribute("role", "status");
      notice.textContent = "Connection lost: reconnecting…";
      socket.parentNode.insertBefore(notice, socket);
    }
    if (notice) notice.hidden = !show;
    socket.toggleAttribute("data-reconnecting", show);
    socket.toggleAttribute("data-connected", !show);
  }
  // Only the table's own socket: every signed-in page also holds /ws/me/ (the bell, friends),
  // whose closing is no lost table, and whose socket must never carry a move. (The offline
  // page showed "Connection lost" for it, with no table socket at all.)
  function fromTheTableSocket(event) {
    return event.target instanceof Element && event.target.matches(".table-socket[ws-connect]");
  }
  document.body.addEventListener("htmx:wsClose", function (event) {
    if (!fromTheTableSocket(event)) return;
    const code = event.detail && event.detail.event ? event.detail.event.code : 0;
    if (code < 4000) reconnectingNotice(true); // 44xx: refused for good, not a connection lost
  });
  document.body.addEventListener("htmx:wsOpen", function (event) {
    if (!fromTheTableSocket(event)) return;
    tableSocket = event.detail.event.target;
    reconnectingNotice(false);
  });

  // A move, or the next deal, goes over the table's socket while it is open, as the fields of
  // its form (data-socket names which): no request per card (games.web.consumers.TableConsumer
  // .receive). The socket answers as the POST would: the new table, or this one with the
  // reason it was refused. While the socket is down the form posts as before.
  document.body.addEventListener("htmx:configRequest", function (event) {
    const form = event.detail.elt;
    if (!form.matches("form[data-socket]")) return;
    if (!tableSocket || tableSocket.readyState !== WebSocket.OPEN) return;
    const fields = {};
    event.detail.formData.forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") (fields[name] = fields[name] || []).push(value);
    });
    tableSocket.send(JSON.stringify({ [form.dataset.socket]: fields }));
    event.preventDefault();
  });
})();

// Every press on the table means what the person saw (issue 44).
//  - An action control (a call, a card, "Next deal", any button of the table) acts only if it
//    has been on screen and still, at the same place, for STILL_MS before the press began: the
//    second click of a double click, or a click on something that just slid under the pointer,
//    does nothing. A control keeps its age across a swap of the table when the same control
//    (same form, same value) is at the same place, so a bot's move elsewhere does not reset it.
//    While a control is too fresh it also takes no pointer events (data-unarmed), which makes
//    a program's click wait for it as a person's eye would.
//  - One move in flight: once a move is sent, further ones are ignored until the table moves on
//    (a new version) or answers with a refusal.
//  - A card that may not be played says why (its title, described for screen readers, and on a
//    click in the move note). A move made while the browser is offline is not sent later: it is
//    refused, and the note says so; one whose post fails (the socket and the network down)
//    says it was not sent. (With the socket down and the network up, the form posts as ever.)
//  - The turn clock of the seat whose turn it is counts down (the last 10 s stand out).
(function () {
  "use strict";

  const STILL_MS = 250;
  const IN_FLIGHT_MS = 10000; // a move never answered (a lost socket) frees the table after this
  // "Copy link" changes nothing at the table, and a second copy is harmless: it is not guarded.
  const CONTROLS = "#table button:not([aria-disabled]):not([data-copy])";

  class ClickGuard {
    constructor(stillMs) {
      this.stillMs = stillMs;
      this.seen = new Map(); // control's key -> {rect, since}
      this.refused = null; // the control whose press was refused, until its click has passed
      this.inFlight = null; // {version, at}
    }

    static key(el) {
      const form = el.form;
      const where = form ? (form.dataset.socket || form.getAttribute("action") || "") : "";
      return [where, el.name, el.value, el.hasAttribute("data-next-deal") ? "next" : el.textContent.trim()].join("|");
    }

    // Where a control lies on the page (not in the window: scrolling the page to it is the
    // person's own doing, not the table moving under them).
    static rectOf(el) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) return "";
      const x = r.left + window.scrollX, y = r.top + window.scrollY;
      return [Math.round(x), Math.round(y), Math.round(r.width), Math.round(r.height)].join(",");
    }

    sample() {
      const now = performance.now();
      const next = new Map();
      document.querySelectorAll(CONTROLS).forEach((el) => {
        const key = ClickGuard.key(el);
        const rect = ClickGuard.rectOf(el);
        const before = this.seen.get(key);
        const since = before && before.rect === rect ? before.since : now;
        next.set(key, { rect: rect, since: since });
        el.toggleAttribute("data-unarmed", !rect || now - since < this.stillMs);
      });
      this.seen = next;
    }

    still(el) {
      const entry = this.seen.get(ClickGuard.key(el));
      const rect = ClickGuard.rectOf(el);
      return Boolean(entry && rect && entry.rect === rect && performance.now() - entry.since >= this.stillMs);
    }

    busy() {
      if (!this.inFlight) return false;
      const table = document.getElementById("table");
      const moved = !table || table.dataset.version !== this.inFlight.version;
      if (moved || performance.now() - this.inFlight.at > IN_FLIGHT_MS) this.inFlight = null;
      return Boolean(this.inFlight);
    }

    sent() {
      const table = document.getElementById("table");
      this.inFlight = { version: table ? table.dataset.version : "", at: performance.now() };
    }

    answered() {
      // A table with a refusal on it is the answer to the move in flight.
      if (document.querySelector("#table .table-error")) this.inFlight = null;
    }

    onPointerDown(event) {
      this.refused = null;
      const el = event.target.closest && event.target.closest(CONTROLS);
      if (!el) return;
      if (!this.still(el) || this.busy()) {
        this.refused = el;
        event.preventDefault();
      }
    }

    onClick(event) {
      const el = event.target.closest && event.target.closest("#table button");
      if (this.refused && el === this.refused) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
      this.refused = null;
    }

    onSubmit(event) {
      const form = event.target;
      // Only a form that goes to the server (the offline page's table answers in the page).
      if (!form.closest || !form.closest("#table")) return;
      if (!form.matches("[hx-post], [data-socket]")) return;
      if (this.busy()) {
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      if (!navigator.onLine) {
        // Never queued to go later, on a table that will have moved on: refused, and said.
        event.preventDefault();
        event.stopImmediatePropagation();
        note("Reconnecting… your move was not sent. Make it again once the table is back.", true);
        return;
      }
      this.sent();
    }

    start() {
      document.addEventListener("pointerdown", (e) => this.onPointerDown(e), true);
      document.addEventListener("click", (e) => this.onClick(e), true);
      document.addEventListener("submit", (e) => this.onSubmit(e), true);
      const swapped = () => { this.sample(); this.answered(); };
      document.body.addEventListener("htmx:afterSettle", swapped);
      document.body.addEventListener("htmx:oobAfterSwap", swapped);
      window.addEventListener("resize", () => this.sample());
      setInterval(() => this.sample(), 50);
      this.sample();
    }
  }

  // The move note: one line over the player's hand (it never pushes the cards). It stays
  // through swaps of the same position (presence, chat) and goes when the table moves on.
  let shownNote = null; // {text, warn, version}
  function note(text, warn) {
    const table = document.getElementById("table");
    shownNote = text ? { text: text, warn: warn, version: table ? table.dataset.version : "" } : null;
    drawNote();
  }
  function drawNote() {
    const line = document.querySelector("#table [data-move-note]");
    if (!line) return;
    const table = document.getElementById("table");
    if (shownNote && (!table || table.dataset.version !== shownNote.version)) shownNote = null;
    line.textContent = shownNote ? shownNote.text : "";
    line.hidden = !shownNote;
    line.classList.toggle("move-note-warn", Boolean(shownNote && shownNote.warn));
  }
  document.body.addEventListener("htmx:afterSettle", drawNote);
  document.body.addEventListener("htmx:oobAfterSwap", drawNote);

  // "Invite a friend" on a forming table (templates/social/_invite_friends.html): a friend who
  // has sat down since the page was drawn is not offered again; one who got up is.
  function pruneInvites() {
    const seated = new Set(
      Array.from(document.querySelectorAll("#table [data-seated-name]"), (el) => el.dataset.seatedName)
    );
    let offered = 0;
    document.querySelectorAll("[data-invite-row]").forEach(function (row) {
      row.hidden = seated.has(row.dataset.inviteRow);
      if (!row.hidden) offered += 1;
    });
    const none = document.querySelector("[data-invite-none]");
    if (none) none.hidden = offered > 0;
  }
  pruneInvites();
  document.body.addEventListener("htmx:afterSettle", pruneInvites);
  document.body.addEventListener("htmx:oobAfterSwap", pruneInvites);

  // A card that may not be played: its reason, on a click too.
  document.addEventListener("click", function (event) {
    const card = event.target.closest && event.target.closest("#table .card-idle[data-why]");
    if (card) note(card.dataset.why, false);
  });

  // A POST made while the network is cut fails: say so rather than nothing.
  document.body.addEventListener("htmx:sendError", function (event) {
    if (event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("#table")) {
      note("The connection is down: your move was not sent. Make it again once the table is back.", true);
    }
  });

  // The turn clock: seconds left as the server counted them when it drew the table.
  let clockTimer = null;
  function startClocks() {
    clearInterval(clockTimer);
    const clocks = Array.from(document.querySelectorAll("#table [data-turn-left]"));
    if (!clocks.length) return;
    const drawnAt = performance.now();
    const tick = function () {
      const gone = (performance.now() - drawnAt) / 1000;
      clocks.forEach(function (clock) {
        const left = Math.max(0, Math.ceil(Number(clock.dataset.turnLeft) - gone));
        clock.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
        clock.classList.toggle("turn-clock-short", left <= 10);
      });
    };
    tick();
    clockTimer = setInterval(tick, 250);
  }

  new ClickGuard(STILL_MS).start();
  document.addEventListener("DOMContentLoaded", startClocks);
  document.body.addEventListener("htmx:afterSettle", startClocks);
  document.body.addEventListener("htmx:oobAfterSwap", startClocks);
})();
