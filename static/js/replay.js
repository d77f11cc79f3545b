// Replay controls from the keyboard, and small comforts that survive htmx swaps of #replay.
//   ← →  previous / next step     Home  the deal as dealt     End  the last card
// Each key follows the control's own link, so with htmx it swaps #replay and puts the step's
// URL in the address bar in place of the last (Back leaves the replay, as a newcomer expects,
// instead of walking back through every step seen); without htmx it is a plain page load.
(function () {
  "use strict";

  const KEYS = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  let wanted = null; // the step the keys asked for, while the replay is on its way there
  let busy = false;

  function typing(event) {
    const el = event.target;
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.tagName === "INPUT");
  }

  function shownStep() {
    return Number(document.getElementById("replay").dataset.step);
  }

  // Every step has a link in the move list (step 0 is "As dealt"); following it swaps #replay
  // and shows the step's URL (or, without htmx, loads it as a page).
  function go(step) {
    const link = document.querySelector('#replay a.move[data-step="' + step + '"]');
    if (!link) return;
    busy = true;
    link.click();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey || typing(event)) return;
    const control = KEYS[event.key];
    const replay = document.getElementById("replay");
    if (!control || !replay) return;
    event.preventDefault(); // Home and End would scroll the page
    // Keys pressed faster than the steps arrive add up: holding → runs through the deal.
    const from = wanted !== null ? wanted : shownStep();
    const last = Number(replay.dataset.last);
    const to = { previous: from - 1, next: from + 1, first: 0, last: last }[control];
    if (to < 0 || to > last || to === from) return;
    wanted = to;
    if (!busy) go(to);
  });

  document.body.addEventListener("htmx:afterSettle", function () {
    busy = false;
    if (wanted !== null && document.getElementById("replay") && wanted !== shownStep()) {
      go(wanted);
    } else {
      wanted = null;
    }
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail.successful) { busy = false; wanted = null; }
  });

  // Keep the current move in view inside the move list (never scroll the page itself).
  function showCurrentMove() {
    const list = document.querySelector("#replay .move-list");
    const current = list && list.querySelector(".move-current");
    if (!current) return;
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }
  document.addEventListener("DOMContentLoaded", showCurrentMove);
  document.body.addEventListener("htmx:afterSettle", showCurrentMove);

  // Autoplay: the steps follow one another at the chosen speed, through the same links. P or
  // the button plays and pauses; a step key pauses.
  let playing = false;
  let timer = null;
  let timerStep = null; // the step the pending timer moves on from

  function speed() {
    const select = document.querySelector("[data-autoplay-speed]");
    return select ? Number(select.value) : 1000;
  }

  function schedule() {
    clearTimeout(timer);
    const replay = document.getElementById("replay");
    timerStep = replay ? shownStep() : null;
    timer = setTimeout(function () {
      const replay = document.getElementById("replay");
      if (!playing || !replay) return;
      const step = shownStep();
      if (step >= Number(replay.dataset.last)) { setPlaying(false); return; }
      go(step + 1);
    }, speed());
  }

  function setPlaying(on) {
    playing = on;
    clearTimeout(timer);
    const button = document.querySelector("[data-autoplay]");
    if (button) {
      button.textContent = on ? "❚❚ Pause" : "▶ Play";
      button.setAttribute("aria-pressed", on ? "true" : "false");
    }
    if (!on) return;
    const replay = document.getElementById("replay");
    if (replay && shownStep() >= Number(replay.dataset.last)) go(0); // from the start again
    else schedule();
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-autoplay]")) setPlaying(!playing);
  });
  document.addEventListener("change", function (event) {
    if (event.target.closest("[data-autoplay-speed]") && playing) schedule();
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
    if (event.key === "p" || event.key === "P") setPlaying(!playing);
    else if (KEYS[event.key] && playing) setPlaying(false);
  }, true);
  // A new step on screen starts the next step's timer. Other swaps must not: the face-up
  // panel polls every 250 ms while it solves, and restarting the timer at each poll held the
  // replay on that step for as long as the solve took (minutes on a busy server).
  document.body.addEventListener("htmx:afterSettle", function () {
    if (playing && document.getElementById("replay") && shownStep() !== timerStep) schedule();
  });
  // A step that failed to load (a dropped connection, a busy server) is tried again.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    const link = event.detail.elt;
    if (playing && !event.detail.successful && link && link.matches && link.matches("a.move")) {
      schedule();
    }
  });

  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const field = document.getElementById(button.dataset.copy);
    field.select();
    const done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {});
    } else if (document.execCommand("copy")) {
      done();
    }
  });
})();
