"""The game API over the engine: ``Game`` (one state array and its decisions), game records,
re-dealt positions, reward modes, errors and the argument checks every layer shares."""
