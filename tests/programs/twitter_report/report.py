"""A small real program for perflab's whole-program tests: loads twitter.json, summarizes every
status, writes each summary as JSON and logs it with the standard library's logging."""

import json
import logging
import sys

from report_lib import summarize

log = logging.getLogger("report")


def main(path: str, rounds: int, out: str) -> int:
    logging.basicConfig(filename=out + ".log", level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with open(path, encoding="utf-8") as file:
        text = file.read()
    written = 0
    with open(out, "w", encoding="utf-8") as sink:
        for _ in range(rounds):
            data = json.loads(text)
            for status in data["statuses"]:
                line = json.dumps(summarize(status), sort_keys=True)
                sink.write(line + "\n")
                log.info("status %s by %s: %d bytes", status["id"], status["user"]["screen_name"], len(line))
                written += 1
    print(f"{written} summaries written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
