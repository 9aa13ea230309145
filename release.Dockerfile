# The release image: goreleaser (dockers_v2, buildx) puts the static binary
# it built for each platform under that platform's directory.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/rlm /usr/local/bin/rlm
USER nonroot
WORKDIR /work
EXPOSE 8088
ENTRYPOINT ["/usr/local/bin/rlm"]
CMD ["--help"]
