"""pytest collects the doctests of the pages; tests/test_docs_example.py runs the example."""

collect_ignore = ["conf.py", "examples"]
