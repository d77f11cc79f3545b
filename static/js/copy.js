// "Copy link" buttons: <button data-copy="#selector"> copies the href (as a full address) or the
// text of the element it names, and says so in the button for a moment. Listened for on the
// document, as the forming table is redrawn over its websocket.
"use strict";
(() => {
  const SAID_MS = 2500;

  function textOf(target) {
    const href = target.getAttribute("href");
    return href ? new URL(href, window.location.href).href : target.textContent.trim();
  }

  // Without the Clipboard API (plain http on another host than localhost) the text is
  // selected in a hidden field and copied the old way.
  function copyTheOldWay(text) {
    const field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "visually-hidden";
    document.body.append(field);
    field.select();
    const done = document.execCommand("copy");
    field.remove();
    return done;
  }

  async function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch (error) {
        return copyTheOldWay(text);
      }
    }
    return copyTheOldWay(text);
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const target = document.querySelector(button.dataset.copy);
    if (!target) return;
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    const copied = await copy(textOf(target));
    button.textContent = copied ? "Copied" : "Select the link and copy it";
    button.classList.toggle("copied", copied);
    setTimeout(() => {
      button.textContent = label;
      button.classList.remove("copied");
    }, SAID_MS);
  });
})();
