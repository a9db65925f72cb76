#!/bin/sh
# Regenerates the results pages, one per paper, and prints the summary table of the README
# (run from the repository's root):
#   sh results/make-results.sh
# Every answer is kept in results/store/ as soon as it is known: a second run solves nothing,
# and an interrupted run resumes where it stopped.
set -e
PAGES="beier-sibeyn dimakopoulos gonzalez bermond dimakopoulos-dimopoulos"
for page in $PAGES telephone-half-duplex; do
  gossipcert table results/$page.toml --jobs 2 --force --quiet
done
gossipcert summary $(for page in $PAGES; do echo results/$page.toml; done) --link-prefix results/
