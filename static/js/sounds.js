// The table's sounds (issue 50): your turn, a card played, a trick taken, the deal's end, a chat
// line from someone else. Every sound is made here with the Web Audio API (oscillators and a
// burst of noise), so the site ships no sound files and has no sound licence to keep.
//
// The page redraws #table from the server (htmx posts, the table's websocket) or, offline, from
// the engine in the browser (static/offline/page.js sends the same htmx:afterSettle event); after
// each redraw the table is compared with the one before, and a change plays its sound:
//   - it became your turn                       → a soft two-note chime
//   - a card reached the felt                   → a short card snap (a burst of noise)
//   - a trick was completed                     → a bright chord if your side took it, a dull one if not
//   - the deal's result appeared                → a three-note cadence
//   - a chat line from someone else came in     → a light blip
// Nothing plays while the tab is hidden, while muted, or before the person's first click or key
// on the page (browsers start audio only then). The mute switch and the volume are the form
// templates/accounts/_sound_controls.html draws on the table, the offline page and the account
// page: signed in, htmx sends a change to the account at once (accounts.views.sound_settings),
// and this browser keeps a copy in localStorage for the offline page and for a guest.
(function () {
  "use strict";

  const STORE_KEY = "setback.sound";
  const DEFAULTS = { muted: false, volume: 70 };
  const root = document.documentElement;

  // What the table asked for (heard) and what made a sound (played), by name: the browser tests
  // read these rather than listen (tests/e2e/test_sounds.py). Also counted on <html>.
  const record = { heard: [], played: [] };

  let audio = null; // the AudioContext, made at the person's first click or key on the page
  let loudness = null; // the gain every sound goes through: the volume
  let noiseBuffer = null; // 0.2 s of white noise, the card's snap

  // --- The settings -------------------------------------------------------------------------
  function cleaned(value) {
    const volume = Math.round(Number(value && value.volume));
    return {
      muted: Boolean(value && value.muted),
      volume: Number.isFinite(volume) ? Math.min(100, Math.max(0, volume)) : DEFAULTS.volume,
    };
  }

  function storedSettings() {
    try {
      const kept = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
      return kept ? cleaned(kept) : null;
    } catch (error) {
      return null;
    }
  }

  function keep(value) {
    try { localStorage.setItem(STORE_KEY, JSON.stringify(value)); } catch (error) { /* private mode */ }
  }

  const form = document.querySelector("[data-sound-form]");
  let settings;
  if (form && form.hasAttribute("data-sound-account")) {
    // Signed in: the account's setting, which this browser's copy follows.
    settings = cleaned({ muted: form.dataset.soundMuted === "1", volume: form.dataset.soundVolume });
    keep(settings);
  } else {
    settings = storedSettings() || cleaned(DEFAULTS);
  }

  function showSettings() {
    if (!form) return;
    form.querySelector("[data-sound-mute]").checked = settings.muted;
    form.querySelector("[data-sound-volume-input]").value = String(settings.volume);
  }

  function settingsFromForm() {
    settings = cleaned({
      muted: form.querySelector("[data-sound-mute]").checked,
      volume: form.querySelector("[data-sound-volume-input]").value,
    });
    keep(settings);
    setLoudness();
  }

  function saved(text) {
    const line = form && form.querySelector("[data-sound-saved]");
    if (line) line.textContent = text;
  }

  if (form) {
    showSettings();
    form.addEventListener("input", settingsFromForm);
    form.addEventListener("change", function () {
      settingsFromForm();
      // Signed in: said once the account has it (htmx:afterRequest below).
      saved(form.hasAttribute("hx-post") ? "" : "Kept in this browser");
    });
    form.addEventListener("htmx:afterRequest", function (event) {
      saved(event.detail.successful ? "Saved" : "Kept in this browser only");
    });
    form.querySelector("[data-sound-try]").addEventListener("click", function () {
      startAudio();
      if (audio) audio.resume().then(function () { sound("turn", 0, true); }, function () {});
    });
  }

  // Another tab of the site changed the setting.
  window.addEventListener("storage", function (event) {
    if (event.key !== STORE_KEY) return;
    settings = storedSettings() || cleaned(DEFAULTS);
    showSettings();
    setLoudness();
  });

  // --- Making the sounds ----------------------------------------------------------------------

  function startAudio() {
    if (!audio) {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return;
      audio = new Context();
      loudness = audio.createGain();
      loudness.connect(audio.destination);
      setLoudness();
    }
    if (audio.state === "suspended") audio.resume().catch(function () {});
  }
  ["pointerdown", "keydown", "touchend"].forEach(function (type) {
    document.addEventListener(type, startAudio, { capture: true, passive: true });
  });

  function setLoudness() {
    // Heard loudness grows about as the square of the gain's amplitude.
    if (loudness) loudness.gain.value = Math.pow(settings.volume / 100, 2) * 0.8;
  }

  // A rise in `attack` seconds to `peak`, then a fall until `length`.
  function envelope(param, at, length, peak, attack) {
    param.setValueAtTime(0.0001, at);
    param.exponentialRampToValueAtTime(peak, at + attack);
    param.exponentialRampToValueAtTime(0.0001, at + length);
  }

  function tone(at, frequency, length, shape) {
    const options = shape || {};
    const wave = audio.createOscillator();
    wave.type = options.type || "sine";
    wave.frequency.setValueAtTime(frequency, at);
    if (options.glideTo) wave.frequency.exponentialRampToValueAtTime(options.glideTo, at + length);
    const gain = audio.createGain();
    envelope(gain.gain, at, length, options.peak || 0.2, options.attack || 0.008);
    if (options.lowpass) {
      const filter = audio.createBiquadFilter();
      filter.type = "lowpass";
      filter.frequency.value = options.lowpass;
      wave.connect(filter);
      filter.connect(gain);
    } else {
      wave.connect(gain);
    }
    gain.connect(loudness);
    wave.start(at);
    wave.stop(at + length + 0.05);
  }

  function noise(at, length, centre, peak) {
    if (!noiseBuffer) {
      noiseBuffer = audio.createBuffer(1, Math.round(audio.sampleRate * 0.2), audio.sampleRate);
      const samples = noiseBuffer.getChannelData(0);
      for (let i = 0; i < samples.length; i++) samples[i] = Math.random() * 2 - 1;
    }
    const source = audio.createBufferSource();
    source.buffer = noiseBuffer;
    const band = audio.createBiquadFilter();
    band.type = "bandpass";
    band.frequency.value = centre;
    band.Q.value = 0.8;
    const gain = audio.createGain();
    envelope(gain.gain, at, length, peak, 0.002);
    source.connect(band);
    band.connect(gain);
    gain.connect(loudness);
    source.start(at);
    source.stop(at + length + 0.02);
  }

  const SOUNDS = {
    // E5 then B5, soft (a triangle wave has few overtones).
    turn: function (at) {
      tone(at, 659.25, 0.4, { type: "triangle", peak: 0.22 });
      tone(at + 0.14, 987.77, 0.55, { type: "triangle", peak: 0.18 });
    },
    // A snap of noise over a short low thump: a card put down.
    card: function (at) {
      noise(at, 0.07, 2600, 0.6);
      tone(at, 170, 0.06, { peak: 0.15, glideTo: 80 });
    },
    // C major, spread a little: bright.
    "trick-ours": function (at) {
      [523.25, 659.25, 783.99, 1046.5].forEach(function (frequency, i) {
        tone(at + i * 0.03, frequency, 0.5, { type: "triangle", peak: 0.1 });
      });
    },
    // A minor, low and filtered: dull.
    "trick-theirs": function (at) {
      [220, 261.63, 329.63].forEach(function (frequency) {
        tone(at, frequency, 0.4, { type: "triangle", peak: 0.12, lowpass: 700 });
      });
    },
    // G, B, then C held: a cadence.
    deal: function (at) {
      tone(at, 392, 0.25, { type: "triangle", peak: 0.18 });
      tone(at + 0.18, 493.88, 0.25, { type: "triangle", peak: 0.18 });
      tone(at + 0.36, 523.25, 0.8, { type: "triangle", peak: 0.2 });
      tone(at + 0.36, 261.63, 0.8, { type: "sine", peak: 0.1 });
    },
    // A short rising blip.
    chat: function (at) {
      tone(at, 1318.5, 0.09, { peak: 0.12, glideTo: 1760 });
    },
  };

  // Plays `name` in `delay` seconds, unless muted, hidden, or the page has had no click or key.
  // `asked`: the "Try" button, which plays even when muted.
  function sound(name, delay, asked) {
    if (!asked) record.heard.push(name);
    if (!asked && (settings.muted || document.visibilityState !== "visible")) return;
    if (!settings.volume || !audio || audio.state !== "running") return;
    SOUNDS[name](audio.currentTime + 0.02 + (delay || 0));
    record.played.push(asked ? "try" : name);
    root.dataset.soundsPlayed = String(record.played.length);
  }

  // --- What changed on the table ------------------------------------------------------------
  function cardKey(card) {
    const face = card.querySelector(".card-face");
    return (card.dataset.from || "") + ":" + (face ? face.getAttribute("aria-label") : "");
  }

  // "You take the trick", "North takes the trick": the side of the viewer took it if it was
  // them, or a name of their side on the scoreboard ("You & North").
  function ourTrick(table) {
    const line = table.querySelector("[data-trick-winner]");
    const found = line ? /^(.*?) takes? the trick$/.exec(line.textContent.trim()) : null;
    if (!found) return false;
    const ours = table.querySelector(".score-mine .score-name");
    const names = ours ? ours.textContent.split(" & ").map(function (name) { return name.trim(); }) : [];
    return found[1] === "You" || names.indexOf(found[1]) >= 0;
  }

  function snapshot() {
    const table = document.getElementById("table");
    const playing = Boolean(table && table.dataset.version && table.dataset.deal !== undefined);
    const lines = Array.from(document.querySelectorAll("#chat-log .chat-line"));
    const last = lines[lines.length - 1];
    return {
      playing: playing,
      deal: playing ? table.dataset.deal : "",
      step: playing ? Number(table.dataset.step || 0) : 0,
      myTurn: playing && table.classList.contains("table-my-turn"),
      cards: playing ? Array.from(table.querySelectorAll(".trick-live .trick-card"), cardKey) : [],
      tricksDone: playing ? Number(table.dataset.tricksDone || 0) : 0,
      ourTrick: playing && ourTrick(table),
      result: playing && Boolean(table.querySelector(".deal-result")),
      chat: lines.map(function (line) { return line.textContent.trim(); }).join("\n"),
      chatFromOther: Boolean(last && !last.classList.contains("chat-mine")),
    };
  }

  let before = snapshot();

  function compare() {
    const now = snapshot();
    const was = before;
    before = now;
    if (now.chat !== was.chat && now.chatFromOther) sound("chat", 0);
    if (!now.playing || !was.playing) {
      if (now.playing && now.myTurn) sound("turn", 0); // the table has just started
      return;
    }
    const sameDeal = now.deal === was.deal;
    const trickDone = sameDeal && now.tricksDone > was.tricksDone;
    const newCard = now.cards.some(function (key) { return was.cards.indexOf(key) < 0; });
    let delay = 0;
    if (newCard || trickDone) {
      sound("card", 0);
      delay = 0.12;
    }
    if (now.result && !was.result) {
      sound("deal", delay);
      delay += 0.9;
    } else if (trickDone) {
      sound(now.ourTrick ? "trick-ours" : "trick-theirs", delay);
      delay += 0.5;
    }
    // Your turn again after others moved, when the page never drew the table between (a quick
    // table, a page that was busy) also sounds; your own two moves in a row (a bid, then trump)
    // do not.
    const othersMoved = !sameDeal || now.step > was.step + 1;
    if (now.myTurn && (!was.myTurn || othersMoved)) sound("turn", delay);
  }

  // After an htmx swap has settled (a post's answer; the offline page's redraw), and after a
  // message of a websocket (its swaps are settled by then; htmx:oobAfterSwap comes before the
  // table's own classes and data are in place).
  document.body.addEventListener("htmx:afterSettle", compare);
  document.body.addEventListener("htmx:wsAfterMessage", compare);

  window.setbackSounds = {
    heard: record.heard,
    played: record.played,
    settings: function () { return { muted: settings.muted, volume: settings.volume }; },
  };
})();
