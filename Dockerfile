# Freeway in a container: docker build -t freeway . && docker run -p 3000:3000 freeway
# Not exercised by the test suite (the test machines have no Docker): a starting point.
FROM node:24-slim

WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000

# The image's Node is 24, so the bundled Node of the `node` package is not needed:
# --ignore-scripts skips its download (no other runtime dependency has an install script).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY bin ./bin
COPY catalog ./catalog
COPY console ./console
COPY providers ./providers
COPY server ./server

USER node
EXPOSE 3000
# One SIGTERM drains in-flight requests for up to SHUTDOWN_TIMEOUT_MS (10 s) and exits 0;
# give `docker stop` more than that (docker stop -t 15, or stop_grace_period in compose).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node itself as PID 1's command (no npm or shell in between), so signals reach Freeway.
CMD ["node", "bin/freeway.mjs"]
