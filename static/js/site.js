// What the pages once did in inline handlers and scripts, which the Content-Security-Policy
// (no 'unsafe-inline', issue 45) refuses: a form that asks first (data-confirm), a form that is
// only a switch's frame (data-no-submit), and a fragment that sends the page on (data-go-to,
// e.g. a pairing request whose table is ready, swapped in over the websocket).
(function () {
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.hasAttribute("data-no-submit")) {
      event.preventDefault();
      return;
    }
    const question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
      event.stopPropagation(); // nor does an htmx form (hx-post) send it: htmx listens on the form
    }
  }, true);

  function goOn(root) {
    const target = root.matches && root.matches("[data-go-to]") ? root : root.querySelector && root.querySelector("[data-go-to]");
    if (target) window.location.assign(target.getAttribute("data-go-to"));
  }
  if (window.htmx) window.htmx.onLoad(goOn);
  else document.addEventListener("DOMContentLoaded", function () { goOn(document.body); });
})();
