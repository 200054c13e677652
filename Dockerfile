# syntax=docker/dockerfile:1
# threadmind: Node 24 LTS runs the TypeScript sources directly (type stripping), so there is no
# build step; the first stage only installs production dependencies.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Optional dependencies stay: sharp's native binaries are among them, and so are the local
# tokenizers that make token counts exact when vLLM's /tokenize cannot be reached. The embedded
# model's engine (node-llama-cpp, ~540 MB with its CUDA builds) is left out unless asked for:
# deployments that talk to vLLM never load it. `--build-arg WITH_EMBEDDED_MODEL=true` keeps it.
ARG WITH_EMBEDDED_MODEL=false
RUN npm ci --omit=dev --no-audit --no-fund \
  && if [ "$WITH_EMBEDDED_MODEL" != "true" ]; then rm -rf node_modules/node-llama-cpp node_modules/@node-llama-cpp; fi \
  && npm cache clean --force

FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json ./
COPY --chown=node:node config ./config
COPY --chown=node:node src ./src
COPY --chown=node:node adapters ./adapters
COPY --chown=node:node bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# The slim image has no curl; Node's fetch does the probe.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/run.mjs", "src/main.ts"]
