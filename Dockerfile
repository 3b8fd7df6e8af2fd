FROM node:20-bookworm-slim
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm install --no-audit --no-fund
COPY . .
EXPOSE 3000
CMD ["npx", "tsx", "apps/api/src/main.ts"]
