// The text table switch (templates/accounts/_text_table_switch.html, docs/accessibility.md):
// on the table page the page is redrawn at once (the body's class text-table) while htmx sends
// the change to the account; "Saved" once the account has it.
(function () {
  "use strict";
  const form = document.querySelector("[data-text-table-form]");
  if (!form) return;
  const box = form.querySelector("[data-text-table-switch]");
  const line = form.querySelector("[data-text-table-saved]");
  box.addEventListener("change", function () {
    if (document.body.classList.contains("table-page")) {
      document.body.classList.toggle("text-table", box.checked);
    }
    line.textContent = "";
  });
  form.addEventListener("htmx:afterRequest", function (event) {
    line.textContent = event.detail.successful ? "Saved" : "Not saved: try again";
  });
})();
