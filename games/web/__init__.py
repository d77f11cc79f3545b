"""The web layer of the core's pages and tables: views, the table's socket, the tasks and the
sweeper. Thin: it parses, checks who asks, calls the core, and answers."""
