# Almanac: the two commands that matter are `make run` and `make test`.
SWIFT ?= swift
FUZZ_SECONDS ?= 20
RULES ?= 20000
LOAD_SECONDS ?= 60
API_EXAMPLES ?= 25

# The real clients and oracles (caldav, vdirsyncer, python-dateutil, Radicale) live in
# their own virtualenv, never in the system Python; schemathesis and selenium in another.
CLIENT_VENV ?= .build/client-venv
PY ?= $(CLIENT_VENV)/bin/python

# What swift format checks and formats (configured in .swift-format).
FORMATTED = Sources Tests Benchmarks FuzzTesting Package.swift

.PHONY: run test test-steps deps test-deps build bench fuzz difftest format lint clean

## install what building and running need and is missing (Debian packages); idempotent
deps:
	scripts/install-deps build

## install what tests and benchmarks need besides (Debian packages, the test virtualenvs)
test-deps:
	scripts/install-deps test

# The release almanac links the Swift runtime and Foundation statically: it starts in
# about 12 ms instead of 20 (every CLI command pays that), and runs where no Swift
# toolchain is installed.
RELEASE = -c release --product almanac --static-swift-stdlib

## release build of the almanac command
build: deps
	$(SWIFT) build $(RELEASE)

## build and run the main job: the server on 127.0.0.1:8080 with the store in the data directory
run: build
	.build/release/almanac serve --host 127.0.0.1 --port 8080

## everything CI runs: warnings are errors, every test (the store suite on SQLite and on a
## throwaway PostgreSQL cluster), the recurrence differential test, real clients (python caldav also
## against the release build, which `make run` serves), a short fuzz run
test: test-deps lint
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) build $(RELEASE) -Xswiftc -warnings-as-errors
	scripts/with-test-postgres $(MAKE) --no-print-directory test-steps

test-steps:
	$(SWIFT) test --skip-build
	$(PY) Tests/Interop/postgres_two_servers.py --almanac .build/debug/almanac
	$(PY) Tests/Differential/check_rfc_examples.py
	$(PY) Tests/Differential/rrule_differential.py --rules $(RULES) --almanac .build/debug/almanac
	$(PY) Tests/Differential/rscale_libical.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/caldav_client.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/caldav_client.py --almanac .build/release/almanac
	$(PY) Tests/Interop/caldav_sharing.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/subscriptions.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/caldav_scheduling.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/imip.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/booking_mail.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/hostile_requests.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/trust_fairness.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/disk_full.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/webhooks.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/reminders.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/push.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/vdirsyncer_sync.py --almanac .build/debug/almanac --vdirsyncer $(CLIENT_VENV)/bin/vdirsyncer
	$(PY) Tests/Interop/thunderbird_caldav.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/evolution_eds.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/calcurse_caldav.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/vtimezone_parsers.py --almanac .build/debug/almanac
	$(PY) Tests/Interop/load_test.py --almanac .build/debug/almanac --seconds $(LOAD_SECONDS)
	$(PY) Tests/Interop/api_schemathesis.py --almanac .build/debug/almanac --examples $(API_EXAMPLES) --st .build/test-venv/bin/st
	.build/test-venv/bin/python Tests/Browser/web_calendar_browser.py --almanac .build/debug/almanac
	.build/test-venv/bin/python Tests/Browser/booking_page_browser.py --almanac .build/debug/almanac
	.build/test-venv/bin/python Tests/Browser/oidc_signin.py --almanac .build/debug/almanac
	FuzzTesting/run-fuzzer $(FUZZ_SECONDS)

## benchmarks (release build), one JSON line per figure, peers measured in the same run
bench: test-deps
	$(SWIFT) run -c release AlmanacBenchmarks

## differential recurrence test: almanac ics expand against python-dateutil (RULES random rules)
difftest: test-deps
	$(SWIFT) build --product almanac
	$(PY) Tests/Differential/check_rfc_examples.py
	$(PY) Tests/Differential/rrule_differential.py --rules $(RULES) --almanac .build/debug/almanac

## fuzz every byte parser (iCalendar, XML bodies, DAV paths, forms, the API, CLI times) for FUZZ_SECONDS each
fuzz: test-deps
	FuzzTesting/run-fuzzer $(FUZZ_SECONDS)

## fail on any formatting difference from .swift-format (make test runs it first)
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

## reformat the code in place
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMATTED)

clean:
	rm -rf .build FuzzTesting/artifacts
