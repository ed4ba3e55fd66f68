# syntax=docker/dockerfile:1
# engram as a container: a static binary (CGO_ENABLED=0; SQLite is pure Go) on a
# distroless base, run as a non-root user, data in the /data volume.
#
#   docker build -t engram --build-arg VERSION=v1.2.3 .
#   docker run -p 8080:8080 -e ENGRAM_API_KEYS=acme=<a key of 16+ characters> -v engram-data:/data engram
#
# It listens on 0.0.0.0:8080, so it needs API keys (open mode is loopback only).
# compose.yaml runs it with PostgreSQL (pgvector) and Redis.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X engram/bootstrap.version=${VERSION}" -o /out/engram . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/engram /usr/local/bin/engram
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV ENGRAM_DATA_DIR=/data \
    ENGRAM_HTTP_ADDR=0.0.0.0:8080
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/engram", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/engram"]
CMD ["serve"]
