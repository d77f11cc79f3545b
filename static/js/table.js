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
  document.body.addEventListener("htmx:wsClose", function (event) {
    const code = event.detail && event.detail.event ? event.detail.event.code : 0;
    if (code < 4000) reconnectingNotice(true); // 44xx: refused for good, not a connection lost
  });
  document.body.addEventListener("htmx:wsOpen", function (event) {
    tableSocket = event.detail.event.target;
    reconnectingNotice(false);
  });

  // A move, or the next deal, goes over the table's socket while it is open, as the fields of
  // its form (data-socket names which): no request per card (games.consumers.TableConsumer
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
