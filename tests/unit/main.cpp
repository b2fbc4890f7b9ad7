// doctest entry point for kcc-unittests; test cases live in the other files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
