#!/usr/bin/env bash
# Start a site, play the load test against it, print the figures and each program's CPU.
#
#   scripts/loadtest-run.sh TABLES [SECONDS] [BOTS] [OUT]
#
# With DATABASE_URL and REDIS_URL unset: the embedded default (one Daphne, SQLite in OUT, the
# in-memory channel layer, bots on threads). With both set: two Daphne processes (ports 8301,
# 8302; BASE_PORT=8400 makes them 8401, 8402) and one Celery worker (concurrency 2); DAPHNES=N
# and WORKERS=N change those counts.
# The database named by DATABASE_URL is DROPPED and created again, and the Redis database is
# flushed: point them at throwaway ones, e.g.
#   DATABASE_URL=postgres://root@127.0.0.1:5432/setback_lt REDIS_URL=redis://127.0.0.1:6379/7
# PROXY=1 puts nginx in front of the Daphne processes, as `make proxy` does, and plays through it.
# PACE (BOT_PACE_SECONDS, default 0), THINK (the person's time to decide, default 0), PACED=1
# (people think 2-6 s), CAPACITY=N,STEP,MAX (the most tables that hold) and DEBUG (default
# false, as `make run`) are read from the environment. The load test prints the server's CPU per
# move. SITE_DIR=/path/to/another/checkout serves that checkout's code instead (this one's .venv
# and load generator), for before-and-after figures. Run `make run` or `make test` once first:
# it uses .venv.
# EVENT=1 plays a Setback night instead (manage.py loadtest_event, issue 49): TABLES is then the
# number of people (200 make 50 tables), SECONDS is not used, BOTS is the event's bot level, and
# EVENT_ARGS passes the command's other options (e.g. "--players 100 --rounds 2").
set -u
TABLES=${1:?tables}; SECONDS_=${2:-60}; BOTS=${3:-easy}; OUT=${4:-var/loadtest}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
export BOT_PACE_SECONDS=${PACE:-0} DEBUG=${DEBUG:-false}
export SECRET_KEY=${SECRET_KEY:-loadtest-only-key-not-for-anything-else}
PY=.venv/bin/python
SITE=$(realpath "${SITE_DIR:-.}")
VENV=$(realpath .venv)
serve() { (cd "$SITE" && PYTHONPATH="$SITE" exec "$@"); }  # (the servers below: the same, in the background)
pids=()
stop() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop EXIT

if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-}" ]; then
  db=${DATABASE_URL##*/}; server=${DATABASE_URL%/*}
  psql "$server/postgres" -qc "DROP DATABASE IF EXISTS \"$db\"" -c "CREATE DATABASE \"$db\"" >/dev/null
  redis-cli -u "$REDIS_URL" flushdb >/dev/null
  ports=()
  for i in $(seq "${DAPHNES:-2}"); do ports+=($((${BASE_PORT:-8300} + i))); done
else
  unset REDIS_URL
  rm -f "$OUT"/db.sqlite3*
  export DATABASE_URL="sqlite:///$(realpath "$OUT")/db.sqlite3"
  ports=(8303)
fi
serve "$VENV/bin/python" manage.py migrate -v0
serve "$VENV/bin/python" manage.py collectstatic --noinput -v0
[ -n "${CAPACITY:-}" ] && serve "$VENV/bin/python" manage.py loadtest_users "${CAPACITY##*,}" >/dev/null
[ -z "${EVENT:-}" ] && serve "$VENV/bin/python" manage.py loadtest_users "$TABLES" >/dev/null
urls=()
if [ -n "${PROXY:-}" ]; then
  # As `make proxy` serves the site (docs/deploy.md): nginx on port 8300 in front of the same
  # number of Daphne processes, started with --proxy-headers; the load test talks to nginx only.
  (cd "$SITE" && PROXY_RUN_DIR="$(realpath "$OUT")/proxy" PYTHONPATH="$SITE" exec "$VENV/bin/python" \
    scripts/serve_behind_proxy.py --port 8300 --daphne "${#ports[@]}") >"$OUT/proxy.log" 2>&1 &
  pids+=($!); urls+=("http://127.0.0.1:8300")
else
  for port in "${ports[@]}"; do
    (cd "$SITE" && PYTHONPATH="$SITE" exec "$VENV/bin/daphne" -b 127.0.0.1 -p "$port" setback_site.asgi:application) >"$OUT/daphne-$port.log" 2>&1 &
    pids+=($!); urls+=("http://127.0.0.1:$port")
  done
fi
if [ -n "${REDIS_URL:-}" ]; then
  for i in $(seq "${WORKERS:-1}"); do
    (cd "$SITE" && PYTHONPATH="$SITE" exec "$VENV/bin/celery" -A setback_site worker -n "loadtest$i@%h" --queues bots,coach,checks --concurrency 2 --loglevel WARNING) >"$OUT/worker-$i.log" 2>&1 &
    pids+=($!)
  done
fi
for url in "${urls[@]}"; do
  for _ in $(seq 120); do curl -sf -o /dev/null "$url/accounts/login/" && break; sleep 0.5; done
done

IFS=,; joined="${urls[*]}"; unset IFS
# The command counts the server's CPU itself (benchmarks/server_cpu.py): these processes,
# their search processes and PostgreSQL's backends of this database, never its own.
if [ -n "${EVENT:-}" ]; then
  # shellcheck disable=SC2086  # EVENT_ARGS is several options
  $PY manage.py loadtest_event --url "$joined" --people "$TABLES" --bot-level "$BOTS" ${EVENT_ARGS:-} 2>&1 | tee "$OUT/loadtest_event.txt"
  exit "${PIPESTATUS[0]}"
fi
$PY manage.py loadtest --url "$joined" --tables "$TABLES" --seconds "$SECONDS_" --bot-level "$BOTS" \
  --think "${THINK:-0}" ${PACED:+--paced} ${CAPACITY:+--capacity "${CAPACITY:-}"} 2>&1 | tee "$OUT/loadtest.txt"
