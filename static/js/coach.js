// The coach's panel belongs to one moment of the table. A move posted over HTTP swaps #table
// before the websocket brings the panel for the new moment: until it does, hide the old advice.
(function () {
  "use strict";

  function check() {
    const table = document.getElementById("table");
    const panel = document.getElementById("coach-panel");
    if (!table || !panel || !panel.dataset.version) return;
    panel.classList.toggle("coach-stale", panel.dataset.version !== table.dataset.version);
  }

  document.body.addEventListener("htmx:afterSettle", check);
  document.body.addEventListener("htmx:oobAfterSwap", check);
})();
