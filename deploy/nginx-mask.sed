# nginx's error log, masked as kit/logs.py masks every other line (issue 37; docs/operations.md,
# "Log retention"): its format cannot be set, and it names the client ("client: 203.0.113.77").
# nginx writes it to stderr, read by `sed -u -E -f deploy/nginx-mask.sed` (GNU sed), which
# writes each line on with every IP address as its network: an IPv4 address its /24, an IPv6
# one its /48 (an IPv4-mapped one its IPv4 /24). Only the exact addresses a server listens on
# (127.0.0.1, 0.0.0.0, ::1, ::) stay as written. A request line, an upstream's URL or a
# referrer keeps no query string (a reset link's token is in one), as in the access log.
# docker-compose.yml runs it on nginx's stderr, deploy/stack.py too;
# tests/kit/test_log_addresses.py checks that it masks as kit.logs.mask_text does.
#
# How: an address is taken only where no letter, digit, '.' or ':' comes before it (as
# kit.logs's candidates), and each one done (masked, or kept) is marked with a newline before
# it, which no input line holds: nothing done is taken again, and the substitutions run twice,
# since one may have used up the character before the next. The marks go at the end.

# Query strings: a request line's, the upstream's URL, a referrer.
s/((request|upstream|referrer): "[^"?]*)\?[^" ]*/\1/g

# An IPv4-mapped IPv6 address: its IPv4 address, masked below.
s/(^|[^0-9A-Za-z_.:\n])::[fF]{4}:([0-9]{1,3}(\.[0-9]{1,3}){3})([^0-9A-Za-z_.]|\.[^0-9]|\.?$)/\1\2\4/g

# Where a server listens: kept.
s/(^|[^0-9A-Za-z_.:\n])(127\.0\.0\.1|0\.0\.0\.0)([^0-9A-Za-z_.]|\.[^0-9]|\.?$)/\1\n\2\3/g
s/(^|[^0-9A-Za-z_.:\n])(127\.0\.0\.1|0\.0\.0\.0)([^0-9A-Za-z_.]|\.[^0-9]|\.?$)/\1\n\2\3/g
s/(^|[^0-9A-Za-z_.:\n])(::1?)([^0-9A-Za-z_.:]|$)/\1\n\2\3/g
s/(^|[^0-9A-Za-z_.:\n])(::1?)([^0-9A-Za-z_.:]|$)/\1\n\2\3/g

# IPv4: its /24 (each part 0-255, no leading zero, as Python's ipaddress reads them).
s/(^|[^0-9A-Za-z_.:\n])((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([^0-9A-Za-z_.]|\.[^0-9]|\.?$)/\1\n\2.0\/24\7/g
s/(^|[^0-9A-Za-z_.:\n])((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([^0-9A-Za-z_.]|\.[^0-9]|\.?$)/\1\n\2.0\/24\7/g

# IPv6: its /48. Eight groups, or fewer with one '::' (three groups, like a clock, are none).
# Its first three groups written out: those; else the groups before the '::' (the rest of
# the first three are zeros).
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4})(:[0-9A-Fa-f]{1,4}){5}([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\4/g
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4})(:[0-9A-Fa-f]{1,4}){0,4}::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,4})?([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\6/g
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4})?)::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,5})?([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\6/g
s/(^|[^0-9A-Za-z_.:\n])::[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,6}([^0-9A-Za-z_.:]|$)/\1\n::\/48\3/g
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4})(:[0-9A-Fa-f]{1,4}){5}([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\4/g
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4})(:[0-9A-Fa-f]{1,4}){0,4}::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,4})?([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\6/g
s/(^|[^0-9A-Za-z_.:\n])([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4})?)::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,5})?([^0-9A-Za-z_.:]|$)/\1\n\2::\/48\6/g
s/(^|[^0-9A-Za-z_.:\n])::[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,6}([^0-9A-Za-z_.:]|$)/\1\n::\/48\3/g

s/\n//g
