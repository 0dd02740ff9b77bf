// Watching someone's game: a read-only board fed by `/ws/games/{id}/` through the
// game's feed (feed.js; spectators get `snapshot` and `state` messages and cannot act).

import { announce, fmt } from "./i18n.js";
import { Board } from "./board.js";
import { GameFeed } from "./feed.js";
import { Hud, showClosed, showNotice } from "./hud.js";
import { showConnection } from "./socket.js";
import { ensurePlayer } from "./guest.js";

const $ = (id) => document.getElementById(id);
const id = Number($("watch").dataset.attempt);
const hud = new Hud();
const board = new Board($("board"), { interactive: false });
let refusal = null; // the error frame the server sends before closing with 4403

/** Each game the feed accepts (its version rules decide which). */
function accept(game, { moved }) {
  const done = game.status !== "playing";
  hud.show(game);
  board.setView(game.view);
  const player = $("watch-player");
  player.textContent = game.player;
  player.href = `/players/${encodeURIComponent(game.player)}/`;
  const replay = $("replay-link");
  replay.hidden = !done;
  replay.href = `/replay/${game.id}/`;
  if (game.status === "won") showNotice(fmt(gettext("%(player)s won this game."), { player: game.player }), "success");
  else if (done) showNotice(gettext("This game is over."), "info");
  else if (game.unwinnable) showNotice(gettext("This position can no longer be won."), "warning");
  else if (game.view.dead_end) showNotice(gettext("No move left: undo or start again."), "warning");
  else showNotice("");
  if (moved) announce(fmt(gettext("Move %(n)s. Score %(score)s."), { n: game.moves, score: game.score }));
}

const feed = new GameFeed(id, {
  onGame: accept,
  onError: (error) => (refusal = error),
  onStatus: (s) => showConnection($("connection"), s),
  onFatal(code) {
    if (code === 4401) location.href = `/login/?next=${encodeURIComponent(location.pathname)}`;
    else if (code === 4403) {
      // The server says why (a daily whose day runs: `spoiler`) in the frame before the close.
      if (refusal) showClosed(refusal);
      else showNotice(gettext("You may not watch this game."), "error");
    }
    else showNotice(gettext("There is no such game."), "error");
  },
});
// A signed-out visitor watches as a guest (issue 39): the socket needs a player.
ensurePlayer().then(
  () => feed.connect(),
  (err) => showNotice(err.message, "error"),
);
