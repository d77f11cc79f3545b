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

  // What a copy button says for a moment ({key, text, copied, until}): the forming table is
  // redrawn over its websocket (someone sits down, a presence changes), and the new button says
  // it too, so "Copied" is not lost to a redraw right after the click.
  let said = null;

  function sayOn(button) {
    if (!said || button.dataset.copy !== said.key) return;
    if (!button.dataset.label) button.dataset.label = button.textContent;
    const now = Date.now() < said.until;
    button.textContent = now ? said.text : button.dataset.label;
    button.classList.toggle("copied", now && said.copied);
  }

  function sayOnEvery() {
    document.querySelectorAll("button[data-copy]").forEach(sayOn);
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const target = document.querySelector(button.dataset.copy);
    if (!target) return;
    const copied = await copy(textOf(target));
    said = { key: button.dataset.copy, text: copied ? "Copied" : "Select the link and copy it", copied: copied, until: Date.now() + SAID_MS };
    sayOnEvery();
    setTimeout(sayOnEvery, SAID_MS);
  });
  document.addEventListener("htmx:afterSettle", sayOnEvery);
  document.addEventListener("htmx:oobAfterSwap", sayOnEvery);
})();
