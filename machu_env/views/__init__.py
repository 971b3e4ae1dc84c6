"""What a person sees, drawn from a player's view of a game (``Game.view``): the text board
(``render``), the SVG board (``svg``), raster frames (``raster``), HTML replays and GIFs
(``replay_html``). Nothing here changes a game, and nothing here imports an adapter."""
