# pytest-benchmark's example tests are run by tests/test_pytest_plugin_peer.py in a scratch
# directory, under the plugin being tested; perflab's own test run must not collect them here.
collect_ignore_glob = ["pytest_benchmark_examples/*"]
