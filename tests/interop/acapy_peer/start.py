"""Runs `aca-py` (its own entry point, unchanged arguments) with JSON-LD contexts added to the
offline cache of its document loader.

ACA-Py 0.12 serves seven contexts from files of its own and downloads every other one from the
web, which these machines cannot reach. Its own presentations (and ours, as Aries RFC 0510 shows
them) carry https://identity.foundation/presentation-exchange/submission/v1, which it would
download: without it every presentation fails to verify here. This adds such contexts from local
files, as if the download had worked; nothing else of ACA-Py changes.

    python start.py --context URL=PATH [--context URL=PATH ...] -- start --arg ...
"""

import sys

from aries_cloudagent.__main__ import script_main
from aries_cloudagent.vc.ld_proofs import document_downloader


def split_args(argv):
    contexts, rest = {}, list(argv)
    while rest and rest[0] == "--context":
        url, _, path = rest[1].partition("=")
        with open(path, encoding="utf-8") as f:
            contexts[url] = f.read()
        rest = rest[2:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    return contexts, rest


def add_contexts(contexts):
    cls = document_downloader.StaticCacheJsonLdDownloader
    original_init = cls.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        for url, text in contexts.items():
            self.cache[url] = self.document_parser.parse(
                {"contentType": "application/ld+json", "contextUrl": None,
                 "documentUrl": url, "document": text},
                None,
            )

    cls.__init__ = init


if __name__ == "__main__":
    extra, args = split_args(sys.argv[1:])
    add_contexts(extra)
    sys.argv = ["aca-py", *args]
    sys.exit(script_main())
