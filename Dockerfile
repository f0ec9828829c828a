# The container image of cairn: cairn, git, gh, jq, bash, bubblewrap and
# socat (claude's sandbox), and the agent CLIs at the versions cairn's argv
# was verified with, which cairn itself names (`cairn doctor --json`, each
# CLI's "install"). .ci/image.sh builds it and runs `cairn doctor` in it.
#
#   docker build -t cairn .
#   docker run --rm -v "$PWD:/work" -e ANTHROPIC_API_KEY cairn run my-process
FROM golang:1.26-bookworm AS build
ARG VERSION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.stampedVersion=${VERSION}" -o /out/cairn ./cmd/cairn

FROM node:20-bookworm-slim
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash bubblewrap ca-certificates gh git jq socat util-linux \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/cairn /usr/local/bin/cairn
# cairn names the packages; an empty list fails the build rather than ship
# an image without its agents.
RUN packages=$(cairn doctor --json | jq -r '[.checks[] | .install // empty] | join(" ")') \
 && test -n "$packages" \
 && read -r -a list <<<"$packages" \
 && npm install -g --no-audit --no-fund --loglevel=error "${list[@]}" \
 && npm cache clean --force
# The repository is mounted from the host, owned by another user: git is
# told to work in it all the same.
RUN git config --system --add safe.directory '*' \
 && useradd --create-home cairn
USER cairn
WORKDIR /work
ENTRYPOINT ["cairn"]
CMD ["doctor"]
