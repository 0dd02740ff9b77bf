"""Race rooms (issue 29): players race one deal, started at one server instant."""
