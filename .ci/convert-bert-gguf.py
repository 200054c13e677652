"""Converts a BERT sentence-embedding model (Hugging Face layout: config.json, vocab.txt,
model.safetensors) to a GGUF file that llama.cpp, and so node-llama-cpp, loads as an embedder.
Needs the PyPI packages gguf, safetensors and numpy.

Usage: python3 convert-bert-gguf.py MODEL_DIR OUT.gguf NAME [POOLING] [TYPE]
POOLING is how a text's vector is made from its tokens': mean (default, sentence-transformers'
MiniLM) or cls (the [CLS] token's, as BGE models are trained); rank makes a cross-encoder
(BertForSequenceClassification with one label): its pooler becomes llama.cpp's `cls` tensors and
its classifier `cls.output`, so the model scores a (query, passage) pair.
TYPE is how the matrices are stored: f16 (default) or q8_0 (8-bit blocks: ~half the file, and
llama.cpp's integer dot products embed faster on a CPU; see ARCHITECTURE.md for what it changes).
"""
import json
import os
import sys

import gguf
import numpy as np
from safetensors.numpy import load_file

model_dir, target, name = sys.argv[1], sys.argv[2], sys.argv[3]
pooling = sys.argv[4] if len(sys.argv) > 4 else "mean"
POOLINGS = {"mean": gguf.PoolingType.MEAN, "cls": gguf.PoolingType.CLS, "rank": gguf.PoolingType.RANK}
if pooling not in POOLINGS:
    sys.exit(f"convert-bert-gguf: pooling {pooling!r} is not one of {', '.join(POOLINGS)}")
wtype = sys.argv[5] if len(sys.argv) > 5 else "f16"
FILE_TYPES = {"f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}
if wtype not in FILE_TYPES:
    sys.exit(f"convert-bert-gguf: type {wtype!r} is not one of {', '.join(FILE_TYPES)}")
with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
    cfg = json.load(f)
if cfg.get("model_type") != "bert":
    sys.exit(f"convert-bert-gguf: model_type {cfg.get('model_type')!r} is not bert")
with open(os.path.join(model_dir, "vocab.txt"), encoding="utf-8") as f:
    vocab = [line.rstrip("\n") for line in f]

# llama.cpp's WordPiece tokenizer marks a word's start with U+2581 instead of marking its
# continuations with "##"; bracketed tokens ([CLS], [unused0]) are matched whole and stay.
tokens, types = [], []
for tok in vocab:
    if tok.startswith("[") and tok.endswith("]"):
        tokens.append(tok)
        types.append(gguf.TokenType.UNKNOWN if tok == "[UNK]" else gguf.TokenType.CONTROL)
    else:
        tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
        types.append(gguf.TokenType.NORMAL)

arch = gguf.MODEL_ARCH.BERT
partial = target + ".partial"
w = gguf.GGUFWriter(partial, gguf.MODEL_ARCH_NAMES[arch])
w.add_name(name)
w.add_context_length(cfg["max_position_embeddings"])
w.add_embedding_length(cfg["hidden_size"])
w.add_feed_forward_length(cfg["intermediate_size"])
w.add_block_count(cfg["num_hidden_layers"])
w.add_head_count(cfg["num_attention_heads"])
w.add_layer_norm_eps(cfg["layer_norm_eps"])
w.add_causal_attention(False)
w.add_pooling_type(POOLINGS[pooling])
w.add_file_type(FILE_TYPES[wtype])
w.add_tokenizer_model("bert")
w.add_tokenizer_pre("default")
w.add_token_list(tokens)
w.add_token_types(types)
w.add_token_type_count(cfg.get("type_vocab_size", 2))
ids = {tok: i for i, tok in enumerate(vocab)}
w.add_bos_token_id(ids["[CLS]"])
w.add_eos_token_id(ids["[SEP]"])
w.add_sep_token_id(ids["[SEP]"])
w.add_unk_token_id(ids["[UNK]"])
w.add_pad_token_id(ids["[PAD]"])
w.add_mask_token_id(ids["[MASK]"])
w.add_add_bos_token(True)
w.add_add_eos_token(True)

names = gguf.get_tensor_name_map(arch, cfg["num_hidden_layers"])
for key, data in load_file(os.path.join(model_dir, "model.safetensors")).items():
    key = key.removeprefix("bert.")
    if key.endswith("position_ids"):
        continue  # a buffer
    if pooling == "rank" and (key.startswith("pooler.dense.") or key.startswith("classifier.")):
        # The sequence-classification head: pooler (dense + tanh) then the one-label classifier.
        head = "cls" if key.startswith("pooler.") else "cls.output"
        w.add_tensor(f"{head}.{key.rsplit('.', 1)[1]}", data.astype(np.float32))
        continue
    if key.startswith("pooler.") or key.startswith("classifier."):
        continue  # the next-sentence head; sentence embeddings do not use it
    out = names.get_name(key, try_suffixes=(".weight", ".bias"))
    if out is None:
        sys.exit(f"convert-bert-gguf: no GGUF name for tensor {key}")
    data = data.astype(np.float32)
    # Matrices in f16 halve the file at no measurable cost; norms, biases and the two token-type
    # rows stay f32, as llama.cpp's own converter keeps them.
    if data.ndim == 2 and not key.endswith("token_type_embeddings.weight"):
        if wtype == "q8_0" and data.shape[-1] % 32 == 0:
            q8 = gguf.GGMLQuantizationType.Q8_0
            w.add_tensor(out, gguf.quants.quantize(data, q8), raw_dtype=q8)
            continue
        data = data.astype(np.float16)
    w.add_tensor(out, data)

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
os.replace(partial, target)
