# siege: the game server in a container.
# Build:  docker build -t siege .
# Run:    docker run -p 8080:8080 -v siege-data:/data siege
# (or `docker compose up`, which does both with a named volume).

# --- build: the release binary ------------------------------------------------------------
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
# SQLite is compiled in (libsqlite3-sys, bundled); the scenario data is compiled in too.
RUN cargo build --release --locked -p siege --bin siege \
    && mkdir -p /src/web

# --- run: a small image with the binary, the page and a data volume -----------------------
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data siege \
    && mkdir -p /data \
    && chown siege /data
COPY --from=build /src/target/release/siege /usr/local/bin/siege
COPY --from=build /src/web /srv/web
WORKDIR /srv
USER siege
VOLUME ["/data"]
EXPOSE 8080
# `siege serve` shuts down gracefully on SIGTERM (what `docker stop` sends).
STOPSIGNAL SIGTERM
ENV RUST_LOG=info
CMD ["siege", "serve", "--addr", "0.0.0.0:8080", "--database", "sqlite:///data/siege.db", "--web-dir", "/srv/web"]
