// The pairing page's countdown: seconds left until bots fill the empty seats.
(function () {
  function tick() {
    document.querySelectorAll("[data-due]").forEach(function (el) {
      var due = Date.parse(el.getAttribute("data-due"));
      if (isNaN(due)) return;
      var left = Math.max(0, Math.round((due - Date.now()) / 1000));
      el.textContent = left + " s";
    });
  }
  tick();
  setInterval(tick, 1000);
})();
