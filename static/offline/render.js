// Draws the offline table and the coach's panel from the views games/offline/worker.py builds,
// with the markup and classes of templates/games/_table.html and templates/coach/_panel.html,
// so that static/css/site.css, js/table.js (keys) and js/cardtable.js (the last trick held in
// view, the discard count, "deal on by itself") treat it as the live table. tests/db/
// test_offline_twin.py draws the same positions both ways and fails when the two drift apart.
(function () {
  "use strict";

  function esc(value) {
    return String(value === null || value === undefined ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  // games/templatetags/cards.py: card_face
  function cardFace(card, small) {
    const classes = "card-face" + (card.red ? " card-red" : "") + (small ? " card-small" : "");
    const corner = '<span class="card-rank">' + esc(card.rank_label) + '</span><span class="card-suit">' + esc(card.symbol) + "</span>";
    return '<span class="' + classes + '" role="img" aria-label="' + esc(card.name) + '">\n' +
      '  <span class="card-corner">' + corner + "</span>\n" +
      '  <span class="card-pip" aria-hidden="true">' + esc(card.symbol) + "</span>\n" +
      '  <span class="card-corner card-corner-end" aria-hidden="true">' + corner + "</span>\n</span>\n";
  }

  function miniCard(card) {
    return '<span class="mini-card' + (card.red ? " card-red" : "") + '" title="' + esc(card.name) + '">' + esc(card.rank_label) + esc(card.symbol) + "</span>";
  }

  function scoreboard(view) {
    let html = '<header class="scoreboard" aria-label="Score"><ul class="score-sides">';
    for (const [label, points, mine] of view.totals) {
      html += '<li class="score-side' + (mine ? " score-mine" : "") + '"><span class="score-name">' + esc(label) + '</span> <strong class="score-points">' + esc(points) + "</strong></li>";
    }
    html += '</ul><div class="score-meta"><span class="chip">Deal ' + esc(view.deal_number) + '</span><span class="chip">To ' + esc(view.target) + "</span>";
    if (view.trump) html += '<span class="chip chip-trump' + (view.trump_red ? " suit-red" : "") + '" title="Trump">Trump ' + esc(view.trump_symbol) + "</span>";
    if (view.bid_label) html += '<span class="chip chip-contract">' + esc(view.pitcher) + " bid " + esc(view.bid_label) + "</span>";
    html += '<span class="chip chip-offline" title="Played in this browser">Offline</span>';
    return html + "</div></header>";
  }

  function seatHtml(seat) {
    let html = '<div class="seat seat-' + esc(seat.place) + (seat.place === "around" && seat.y < 20 ? " seat-high" : "") + (seat.is_turn ? " seat-turn" : "") +
      " at-x-" + seat.x + " at-y-" + seat.y + '" data-seat="' + esc(seat.position) + '"><div class="seat-name">';
    if (seat.is_dealer) html += '<span class="dealer-chip" title="Dealer">D</span>';
    html += "<span>" + esc(seat.name) + "</span>";
    if (seat.is_pitcher) html += ' <span class="pitcher-mark" title="Pitcher">★</span>';
    html += "</div>";
    if (seat.bot_level) html += '<span class="bot-level" title="A computer player, ' + esc(seat.bot_level) + '">' + esc(seat.bot_level) + " bot</span>";
    if (!seat.revealed) {
      html += '<div class="card-backs" role="img" aria-label="' + seat.card_count + ' cards">';
      for (let i = 0; i < seat.card_count; i++) html += '<span class="card-back"></span>';
      html += '<span class="card-count">' + seat.card_count + "</span></div>";
    }
    if (seat.call) html += '<div class="call-bubble">' + esc(seat.call) + "</div>";
    if (seat.is_turn) html += '<div class="thinking" role="status" aria-label="' + esc(seat.name) + ' is thinking"><i></i><i></i><i></i></div>';
    return html + "</div>";
  }

  function felt(view) {
    let html = '<section class="felt' + (view.seats.length !== 4 ? " felt-around" : "") + '" aria-label="Table">';
    for (const seat of view.seats) if (!seat.is_me) html += seatHtml(seat);
    html += '<div class="trick trick-live" role="group" aria-label="Current trick">';
    for (const seat of view.seats) {
      if (seat.trick_card) {
        html += '<div class="trick-card' + (seat.led ? " trick-led" : "") + " at-x-" + seat.trick_x + " at-y-" + seat.trick_y + '" data-from="' + esc(seat.position) + '" title="' + esc(seat.name) + (seat.led ? " led" : "") + '">' +
          cardFace(seat.trick_card, true) + (seat.led ? '<span class="led-mark" aria-hidden="true">led</span>' : "") + "</div>";
      }
    }
    if (view.phase === "auction") html += '<div class="trick-note">Bidding</div>';
    if (view.led_suit) {
      html += '<p class="trick-suits"><span class="' + ("HD".includes(view.led_suit) ? "suit-red" : "") + '">Led ' + esc(view.led_symbol) + "</span>" +
        (view.trump ? ' · <span class="' + (view.trump_red ? "suit-red" : "") + '">Trump ' + esc(view.trump_symbol) + "</span>" : "") + "</p>";
    }
    html += "</div>";
    if (view.last_trick.length) {
      html += '<div class="trick trick-done' + (view.trick_just_done ? " trick-done-now" : "") + '" role="group" aria-label="Trick ' + view.tricks_done + ": " + esc(view.last_trick_winner) + '" data-trick-done="' + view.tricks_done + '">';
      for (const tc of view.last_trick) {
        html += '<div class="trick-card' + (tc.won ? " trick-won" : "") + " at-x-" + tc.x + " at-y-" + tc.y + '" title="' + esc(tc.seat_name) + '">' + cardFace(tc.card, true) + "</div>";
      }
      html += '<p class="trick-winner" role="status" data-trick-winner>' + esc(view.last_trick_winner) + "</p></div>";
    }
    return html + "</section>";
  }

  function result(view) {
    const r = view.result;
    if (!r) return "";
    let html = '<div class="deal-result" role="status">';
    if (r.thrown_in) {
      html += "<h2>Everyone passed</h2><p>The hand is thrown in; the deal passes to the left.</p>";
    } else {
      html += "<h2>" + esc(r.pitcher) + " bid " + esc(r.bid) + " and " + (r.made ? '<span class="made">made it</span>' : '<span class="set">' + (r.pitcher === "You" ? "were" : "was") + " set back</span>") + "</h2>";
      html += '<table class="points-table"><tbody>';
      for (const [kind, taker, card] of r.points) html += "<tr><th>" + esc(kind) + "</th><td>" + (card ? miniCard(card) + " " : "") + esc(taker) + "</td></tr>";
      html += '</tbody></table><p class="deal-scores">';
      for (const [name, shown] of r.score) html += "<span>" + esc(name) + ": <strong>" + esc(shown) + "</strong></span>";
      html += "</p>" + (r.claim_note ? '<p class="claim-note" data-claim-note>' + esc(r.claim_note) + "</p>" : "") + '<p class="muted small">Game points: ' + r.game_points.map(([name, n]) => esc(name) + " " + esc(n)).join(" · ") + "</p>";
      html += '<details class="dealt-hands" open><summary>The hands as dealt</summary><ul class="dealt-hand-list">';
      for (const [name, cards] of r.hands) html += '<li><span class="dealt-who">' + esc(name) + '</span> <span class="dealt-cards">' + cards.map(miniCard).join("") + "</span></li>";
      html += "</ul></details>";
    }
    if (view.match_over) {
      html += '<div class="match-over"><h2>' + esc(view.winner_label) + " " + esc(view.winner_verb) + " the match!</h2><p>Final score: " +
        view.totals.map(([label, points]) => esc(label) + " " + esc(points)).join(", ") + "</p>" +
        '<button class="button button-accent" type="button" data-play-again>Play again</button></div>';
    } else {
      html += '<form class="next-deal-form" data-offline-form="next"><button class="button button-accent" type="submit" data-next-deal>Next deal</button>' +
        '<label class="check auto-deal"><input type="checkbox" data-auto-deal> Deal on by itself after a few seconds</label></form>';
    }
    return html + "</div>";
  }

  // A card of the hand that may not be played: why, on hover, focus and click (js/table.js).
  function idleCard(card) {
    if (!card.why) return '<span class="card card-idle">' + cardFace(card) + "</span>";
    return '<button class="card card-idle" type="button" aria-disabled="true" title="' + esc(card.why) + '" aria-describedby="why-' + esc(card.code) +
      '" data-why="' + esc(card.why) + '">' + cardFace(card) + '<span class="visually-hidden">, not playable now</span></button><span class="visually-hidden" id="why-' + esc(card.code) + '">' + esc(card.why) + "</span>";
  }

  function hand(view) {
    // The move note, and the calls in a row that keeps its height when empty, so the hand stays
    // where it is between the auction and the play (a double click never lands on a card).
    let html = '<p class="move-note" data-move-note role="status" aria-live="polite" hidden></p>';
    if (!view.discard_choices.length) {
      html += '<div class="action-row">';
      if (view.bids.length) {
        html += '<form class="bid-bar" data-offline-form="act">';
        for (const bid of view.bids) html += '<button class="button bid-button" type="submit" name="action" value="' + esc(bid.token) + '" data-action>' + esc(bid.label) + "</button>";
        html += "</form>";
      }
      html += "</div>";
    }
    if (view.discard_choices.length) {
      html += '<form class="discard-form" data-offline-form="discard"' + (view.discard_exact ? ' data-discard-exact="' + view.discard_exact + '"' : "") + '><div class="hand">';
      for (const card of view.discard_choices) {
        html += card.legal
          ? '<label class="card card-choice"><input type="checkbox" name="cards" value="' + esc(card.code) + '" data-action>' + cardFace(card) + "</label>"
          : '<span class="card card-idle" title="You keep this card">' + cardFace(card) + "</span>";
      }
      html += '</div><p class="discard-count" data-discard-count aria-live="polite">' + (view.discard_exact ? "0 of " + view.discard_exact + " chosen" : "None chosen: you keep your hand") + "</p>" +
        '<button class="button" type="submit" data-discard-submit' + (view.discard_exact ? " disabled" : "") + ">" + esc(view.discard_label) + "</button></form>";
    } else {
      html += '<form class="hand" data-offline-form="act">';
      for (const card of view.hand) {
        html += card.legal
          ? '<button class="card card-legal" type="submit" name="action" value="' + esc(card.action) + '" data-action data-card>' + cardFace(card) + "</button>"
          : idleCard(card);
      }
      if (view.may_claim) html += '<button class="button button-small button-ghost claim-button" type="submit" name="action" value="claim" data-action data-claim title="Play out the rest at once, if every remaining trick is surely yours">Claim the rest</button>';
      html += "</form>";
    }
    return html;
  }

  function side(view) {
    let html = '<aside class="table-side"><details class="panel last-trick" id="last-trick-panel" open><summary>Last trick' +
      (view.tricks_done ? ' <span class="muted small">(' + view.tricks_done + " of " + view.tricks_per_deal + ")</span>" : "") + "</summary>";
    if (view.last_trick.length) {
      html += '<ol class="last-trick-list">';
      for (const tc of view.last_trick) html += '<li class="' + (tc.won ? "last-trick-won" : "") + '"><span class="last-trick-who">' + esc(tc.seat_name) + "</span> " + miniCard(tc.card) + (tc.won ? ' <strong class="small">took it</strong>' : "") + "</li>";
      html += "</ol>";
    } else html += '<p class="muted small">No trick yet.</p>';
    html += '</details><div class="panel auction-panel"><h3>Auction</h3>';
    html += view.auction.length
      ? '<ol class="auction-list">' + view.auction.map(([name, call]) => "<li><span>" + esc(name) + "</span> <strong>" + esc(call) + "</strong></li>").join("") + "</ol>"
      : '<p class="muted">No calls yet.</p>';
    if (view.tricks_taken.length) html += '<p class="muted small">Tricks taken: ' + view.tricks_taken.map(([label, n]) => esc(label) + " " + n).join(" · ") + "</p>";
    return html + '</div><p class="rules-text muted small">' + esc(view.rules_text) + "</p></aside>";
  }

  // The whole #table, as templates/games/_table.html draws it for the seat.
  function tableHtml(view, error) {
    const me = view.me_seat;
    let html = '<ol class="visually-hidden" aria-hidden="true" data-spoken>' + view.spoken.map(([step, words]) => '<li data-step="' + step + '">' + esc(words) + "</li>").join("") + "</ol>" +
      (view.turn_cue ? '<p class="visually-hidden" aria-hidden="true" data-turn-cue>' + esc(view.turn_cue) + "</p>" : "");
    html += scoreboard(view);
    if (view.going_out_note) html += '<div class="table-message table-note" data-going-out>' + esc(view.going_out_note) + "</div>";
    html += felt(view) + result(view);
    html += '<section class="me' + (view.my_turn ? " seat-turn" : "") + '" aria-label="Your hand"><div class="me-line"><span class="seat-name">' +
      (me.is_dealer ? '<span class="dealer-chip" title="Dealer">D</span>' : "") + esc(me.name) + (view.me_unnamed ? "" : " (you)") +
      (me.is_pitcher ? ' <span class="pitcher-mark" title="Pitcher">★</span>' : "") + "</span>" +
      (me.call ? '<span class="call-bubble call-inline">' + esc(me.call) + "</span>" : "") +
      '<span class="status-line' + (view.my_turn ? " status-my-turn" : "") + '" role="status">' + esc(view.status) + "</span></div>";
    if (error) html += '<div class="table-message table-error" role="alert">' + esc(error) + "</div>";
    html += hand(view) + "</section>" + side(view);
    return html;
  }

  function renderTable(element, view, error) {
    element.className = "table" + (view.my_turn ? " table-my-turn" : "");
    element.dataset.version = view.version;
    element.dataset.deal = view.deal_number;
    element.dataset.step = view.step;
    element.dataset.phase = view.phase;
    element.dataset.tricksDone = view.tricks_done;
    element.innerHTML = tableHtml(view, error);
  }

  // templates/coach/_panel.html, for the states the offline page has.
  function coachHtml(panel) {
    if (panel.state === "off") return '<p class="coach-note">Switch the coach on to see your options ranked, with their figures and a reason, at each of your decisions.</p>';
    if (panel.state === "waiting") return '<p class="coach-note">The coach speaks at your turn.</p>';
    if (panel.state === "forced") return '<p class="coach-note">Only one legal move: ' + esc(panel.forced_label) + ".</p>";
    if (panel.state === "thinking") return '<p class="coach-note coach-thinking" role="status"><span class="thinking thinking-dark" aria-hidden="true"><i></i><i></i><i></i></span> The coach is weighing your options…</p>';
    let html = "";
    if (panel.bid_grid && panel.bid_grid.length) {
      html += '<table class="bid-grid"><caption>Chance of making each bid</caption><tbody>';
      for (const row of panel.bid_grid) {
        html += '<tr><th scope="row">' + esc(row.label) + (row.suit ? ' <span class="bid-suit' + (row.suit === "hearts" || row.suit === "diamonds" ? " suit-red" : "") + '" title="with ' + esc(row.suit) + ' as trump">' + esc(row.symbol) + "</span>" : "") + "</th>" +
          '<td class="bid-bar-cell">' + (row.make !== null ? '<span class="meter" aria-hidden="true"><span class="w-pct-' + row.make + '"></span></span>' : "") + "</td>" +
          '<td class="bid-pct">' + (row.make !== null ? row.make + "%" : "–") + "</td></tr>";
      }
      html += "</tbody></table>";
    }
    html += '<ol class="coach-options" aria-label="Your options, best first">';
    for (const option of panel.options) {
      html += '<li class="coach-option' + (option.best ? " coach-best" : "") + '" data-action="' + esc(option.action) + '"><div class="coach-option-line">' +
        '<span class="coach-rank" role="img" aria-label="Choice ' + option.rank + '">' + option.rank + "</span>" +
        (option.card ? '<span class="coach-card' + (option.card.red ? " suit-red" : "") + '" aria-hidden="true">' + esc(option.card.rank_label) + esc(option.card.symbol) + "</span>" : "") +
        '<span class="coach-label">' + esc(option.label) + "</span>" +
        '<span class="coach-points" title="Net points: what your side expects from this deal (' + esc(option.points_text) + " ± " + esc(option.stderr) + ") minus what the other side expects (" + esc(option.theirs_text) + ')"><strong>' + esc(option.net_text) + "</strong> net</span></div>" +
        '<p class="coach-reason">' + esc(option.reason) + '</p><ul class="coach-figures" aria-label="Your side\'s chances"><li class="figure-whose">Your side:</li>' +
        (option.contract ? '<li class="figure-contract" title="Your side\'s chance to ' + esc(option.contract[0].toLowerCase()) + ' the bid"><span>' + esc(option.contract[0]) + "</span> " + option.contract[1] + "%</li>" : "") +
        option.chances.map(([name, percent]) => '<li title="Your side\'s chance of taking ' + esc(name) + '"><span>' + esc(name) + "</span> " + percent + "%</li>").join("") +
        (option.win_match !== null ? '<li class="figure-match"><span>Win match</span> ' + option.win_match + "%</li>" : "") +
        "</ul></li>";
    }
    html += '</ol><p class="coach-footnote">Net points: what your side can expect from this deal less what the other side can (the coach ranks by it), and your side\'s chances of making (or setting) the bid and of taking each point, over ' + esc(panel.samples) +
      " deals dealt to fit what you have seen." + (panel.ranking === "match" ? " Near the end of the match the coach ranks by the chance of winning it." : "") + "</p>";
    return html;
  }

  function renderCoach(element, panel, enabled) {
    element.className = "coach-panel coach-" + panel.state + (enabled ? "" : " coach-off");
    element.dataset.version = panel.version || "";
    element.innerHTML = coachHtml(panel);
  }

  window.SetbackOfflineRender = { renderTable, renderCoach, esc };
})();
