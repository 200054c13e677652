#!/usr/bin/env bash
# Stops the Neo4j that neo4j/start.sh started (SIGTERM: a clean shutdown, ~5 s; SIGKILL after 60 s)
# and deletes its database. Usage: neo4j/stop.sh [--run-dir DIR]   (default neo4j/.run)
# Exits 0 when nothing was running.
set -euo pipefail

NEO4J_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${NEO4J_DIR}/.run"
while [ $# -gt 0 ]; do
  case "$1" in
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    -h | --help) sed -n '2,4p' "${BASH_SOURCE[0]}" >&2; exit 0 ;;
    *) echo "neo4j: unknown argument: $1" >&2; exit 2 ;;
  esac
done

PID_FILE="${RUN_DIR}/neo4j.pid"
if [ -s "${PID_FILE}" ]; then
  pid="$(cat "${PID_FILE}")"
  # Only our launcher: a stale pid file must not stop whatever process reused that pid.
  if kill -0 "${pid}" 2>/dev/null && tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null |
    grep -q 'threadmind\.neo4j\.Launcher'; then
    kill -TERM "${pid}" 2>/dev/null || true
    for _ in $(seq 1 600); do
      kill -0 "${pid}" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "${pid}" 2>/dev/null; then
      echo "neo4j: pid ${pid} did not stop within 60 s; killing it" >&2
      kill -KILL "${pid}" 2>/dev/null || true
    fi
  fi
fi
rm -rf "${RUN_DIR}/data" "${PID_FILE}" "${RUN_DIR}/env"
