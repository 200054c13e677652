# Sourced by the .ci/fetch-*.sh scripts: what they need of Python before fetching a model.
# Messages go to stderr, prefixed with the calling script's name ($1 of each function).

# python3 and pip, from the system's packages when missing.
need_python_pip() {
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
    echo "$1: installing python3 and pip" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq python3 python3-pip >/dev/null
  fi
}

# The GGUF converters' packages, in a directory of their own beside the models ($2; no virtualenv,
# no change to the system's Python), kept for the next conversion. Sets PYDEPS.
need_converter_pydeps() {
  PYDEPS="$2/.convert-pydeps"
  if ! PYTHONPATH="${PYDEPS}" python3 -c 'import gguf, safetensors, numpy' >/dev/null 2>&1; then
    echo "$1: installing gguf, safetensors and numpy into ${PYDEPS}" >&2
    rm -rf "${PYDEPS}"
    python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
      --target "${PYDEPS}" gguf==0.19.0 safetensors numpy >&2
  fi
}
