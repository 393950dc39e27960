/*
 * ical_bench.c — reference measurements of libical for the Almanac benchmarks.
 *
 * Build:
 *   cc -O2 -Wall -Wextra -o /tmp/ical_bench Benchmarks/libical/ical_bench.c \
 *      $(pkg-config --cflags --libs libical)
 *
 * Usage:
 *   ical_bench parse FILE ITERATIONS
 *   ical_bench recur FILE ITERATIONS FROM_UNIX TO_UNIX
 *   ical_bench format FILE
 *   ical_bench expand FILE FROM_UNIX TO_UNIX
 *
 * parse: reads FILE into memory once, then for each phase runs one untimed
 *   warm-up iteration followed by ITERATIONS timed iterations and reports the
 *   median wall-clock seconds (CLOCK_MONOTONIC) per iteration:
 *     parse_seconds      icalparser_parse_string() only (tree free not timed)
 *     serialize_seconds  icalcomponent_as_ical_string_r() on a tree parsed
 *                        once up front (freeing the string not timed)
 *     roundtrip_seconds  parse + serialize back to back (frees not timed)
 *   Output (one line on stdout):
 *     {"tool":"libical","version":"...","bytes":N,"components":C,
 *      "iterations":K,"parse_seconds":x,"serialize_seconds":y,
 *      "roundtrip_seconds":z,"output_bytes":M}
 *   C counts every component in the parsed tree, including the root
 *   VCALENDAR; M is strlen() of the serialized text.
 *
 * recur: parses FILE once (untimed), collects every VEVENT that has an RRULE
 *   (first RRULE only; EXDATE/RDATE/RECURRENCE-ID overrides are NOT applied —
 *   this measures raw RRULE expansion), and times the loop that, for each
 *   rule, creates an icalrecur_iterator from (RRULE, DTSTART), walks it with
 *   icalrecur_iterator_next() and counts instances whose start lies in
 *   [FROM, TO) (compared as UTC unix seconds via icaltime_as_timet_with_zone),
 *   stopping at the first instance >= TO. DTSTART's TZID is resolved via the
 *   calendar's VTIMEZONEs (icalcomponent_get_dtstart), falling back to
 *   libical's builtin/system zone of that name; unresolvable TZIDs are
 *   treated as floating.
 *   Output: {"tool":"libical","mode":"recur","rules":R,"instances":I,
 *            "iterations":K,"seconds":s}
 *
 *   icalrecur_iterator_set_start(): this file targets libical >= 3.0, where it
 *   exists, so it IS used to skip ahead to FROM for rules without COUNT (libical
 *   refuses set_start on COUNT rules, which must be walked from DTSTART).
 *   Instances before FROM are still filtered out, so set_start is only a
 *   skip-ahead optimisation and cannot change the counted instances.
 *   Set ICAL_BENCH_NO_SET_START=1 to disable it (walk every rule from DTSTART),
 *   e.g. to cross-check the instance count.
 *
 * format FILE: the whole-process peer of `almanac ics format`: reads FILE,
 *   parses it (icalparser_parse_string), serializes the tree
 *   (icalcomponent_as_ical_string_r) and writes the text to stdout.
 *
 * expand FILE FROM_UNIX TO_UNIX: the whole-process peer of `almanac ics expand
 *   --format jsonl`: parses FILE and, for every VEVENT, walks its instances in
 *   [FROM, TO) with icalcomponent_foreach_recurrence (which applies RRULE, RDATE
 *   and EXDATE), printing one JSON line per instance: {"uid":…,"start":…,"end":…,
 *   "summary":…} with the times in UTC. Overrides (RECURRENCE-ID) are not merged,
 *   as libical's iterator does not merge them.
 *
 * Set ICAL_BENCH_VERBOSE=1 to get per-iteration timings on stderr.
 *
 * Errors (bad arguments, unreadable file, parse failure) are reported on
 * stderr with exit status 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libical/ical.h>

#if defined(ICAL_CHECK_VERSION)
#if ICAL_CHECK_VERSION(3, 0, 0)
#define HAVE_SET_START 1
#endif
#endif
#ifndef HAVE_SET_START
#define HAVE_SET_START 0
#endif

static const char *prog = "ical_bench";
static int verbose = 0;

/* ------------------------------------------------------------------ utils */

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: %s parse FILE ITERATIONS\n"
            "       %s recur FILE ITERATIONS FROM_UNIX TO_UNIX\n"
            "       %s format FILE\n"
            "       %s expand FILE FROM_UNIX TO_UNIX\n",
            prog, prog, prog, prog);
    exit(1);
}

static double now_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        die("clock_gettime(CLOCK_MONOTONIC) failed: %s", strerror(errno));
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    if (n % 2) {
        return v[n / 2];
    }
    return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static long parse_long(const char *s, const char *what, long min, long max)
{
    char *end = NULL;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "%s: invalid %s '%s' (expected an integer in [%ld, %ld])\n",
                prog, what, s, min, max);
        exit(1);
    }
    return (long)v;
}

static char *read_file(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, len = 0;

    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    for (;;) {
        size_t n;
        if (cap - len < 65536) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                die("out of memory reading '%s'", path);
            }
            buf = nb;
            cap = ncap;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    fclose(f);
    buf[len] = '\0';
    if (memchr(buf, '\0', len) != NULL) {
        die("'%s' contains NUL bytes; not an iCalendar text file", path);
    }
    *len_out = len;
    return buf;
}

static void quiet_libical(void)
{
    /* Never abort()/print on library errors; the parser records problems as
     * X-LIC-ERROR properties instead. libical performs no network access. */
    icalerror_set_errors_are_fatal(0);
    icalerror_set_error_state(ICAL_PARSE_ERROR, ICAL_ERROR_NONFATAL);
    icalerror_set_error_state(ICAL_MALFORMEDDATA_ERROR, ICAL_ERROR_NONFATAL);
    icalerror_set_error_state(ICAL_BADARG_ERROR, ICAL_ERROR_NONFATAL);
    icalerror_set_error_state(ICAL_USAGE_ERROR, ICAL_ERROR_NONFATAL);
    icalerror_set_error_state(ICAL_INTERNAL_ERROR, ICAL_ERROR_NONFATAL);
    icalerror_set_error_state(ICAL_NEWFAILED_ERROR, ICAL_ERROR_NONFATAL);
}

static icalcomponent *parse_or_die(const char *buf, const char *path)
{
    icalcomponent *c = icalparser_parse_string(buf);
    if (!c) {
        die("libical could not parse '%s' (icalparser_parse_string returned NULL)", path);
    }
    return c;
}

static long count_components(icalcomponent *c)
{
    long n = 1;
    icalcompiter it;
    icalcomponent *sub;
    for (it = icalcomponent_begin_component(c, ICAL_ANY_COMPONENT);
         (sub = icalcompiter_deref(&it)) != NULL; icalcompiter_next(&it)) {
        n += count_components(sub);
    }
    return n;
}

/* ------------------------------------------------------------ parse mode */

static int mode_parse(const char *path, int iters)
{
    size_t len = 0, out_len = 0;
    char *buf = read_file(path, &len);
    double *tp = calloc((size_t)iters, sizeof(double));
    double *ts = calloc((size_t)iters, sizeof(double));
    double *tr = calloc((size_t)iters, sizeof(double));
    icalcomponent *root;
    long ncomp;
    int i;

    if (!tp || !ts || !tr) {
        die("out of memory%s", "");
    }

    /* (a) parse only: time icalparser_parse_string(); free outside the timer */
    for (i = -1; i < iters; i++) {
        double t0 = now_seconds(), t1;
        icalcomponent *c = icalparser_parse_string(buf);
        t1 = now_seconds();
        if (!c) {
            die("libical could not parse '%s' (icalparser_parse_string returned NULL)", path);
        }
        icalcomponent_free(c);
        if (i >= 0) {
            tp[i] = t1 - t0;
            if (verbose) {
                fprintf(stderr, "parse[%d] %.6f s (free %.6f s)\n", i, tp[i], now_seconds() - t1);
            }
        }
    }

    /* (b) serialize only: one tree parsed up front */
    root = parse_or_die(buf, path);
    ncomp = count_components(root);
    for (i = -1; i < iters; i++) {
        double t0 = now_seconds(), t1;
        char *s = icalcomponent_as_ical_string_r(root);
        t1 = now_seconds();
        if (!s) {
            die("icalcomponent_as_ical_string_r returned NULL for '%s'", path);
        }
        if (i < 0) {
            out_len = strlen(s);
        } else {
            ts[i] = t1 - t0;
            if (verbose) {
                fprintf(stderr, "serialize[%d] %.6f s\n", i, ts[i]);
            }
        }
        icalmemory_free_buffer(s);
    }
    icalcomponent_free(root);

    /* (c) parse + serialize together; frees outside the timer */
    for (i = -1; i < iters; i++) {
        double t0 = now_seconds(), t1;
        icalcomponent *c = icalparser_parse_string(buf);
        char *s = c ? icalcomponent_as_ical_string_r(c) : NULL;
        t1 = now_seconds();
        if (!c) {
            die("libical could not parse '%s' (icalparser_parse_string returned NULL)", path);
        }
        if (!s) {
            die("icalcomponent_as_ical_string_r returned NULL for '%s'", path);
        }
        if (strlen(s) != out_len) {
            fprintf(stderr, "%s: warning: serialized size changed between runs (%zu vs %zu)\n",
                    prog, strlen(s), out_len);
        }
        icalmemory_free_buffer(s);
        icalcomponent_free(c);
        if (i >= 0) {
            tr[i] = t1 - t0;
            if (verbose) {
                fprintf(stderr, "roundtrip[%d] %.6f s\n", i, tr[i]);
            }
        }
    }

    printf("{\"tool\":\"libical\",\"version\":\"%s\",\"bytes\":%zu,\"components\":%ld,"
           "\"iterations\":%d,\"parse_seconds\":%.6f,\"serialize_seconds\":%.6f,"
           "\"roundtrip_seconds\":%.6f,\"output_bytes\":%zu}\n",
           ICAL_VERSION, len, ncomp, iters, median(tp, iters), median(ts, iters),
           median(tr, iters), out_len);

    free(tp);
    free(ts);
    free(tr);
    free(buf);
    return 0;
}

/* ------------------------------------------------------------ recur mode */

struct rule {
    struct icalrecurrencetype rrule;
    struct icaltimetype dtstart;
    icaltimezone *zone;         /* NULL = floating (or DATE value) */
    struct icaltimetype from;   /* FROM expressed in DTSTART's zone / form */
    int can_set_start;          /* no COUNT and FROM after DTSTART */
};

struct rules {
    struct rule *v;
    size_t n, cap;
    long unresolved_tzid;
};

static void add_rule(struct rules *rs, icalcomponent *ev, time_t from)
{
    icalproperty *rp = icalcomponent_get_first_property(ev, ICAL_RRULE_PROPERTY);
    icalproperty *dp = icalcomponent_get_first_property(ev, ICAL_DTSTART_PROPERTY);
    struct rule *r;
    icalparameter *tzp;

    if (!rp || !dp) {
        return;
    }
    if (rs->n == rs->cap) {
        size_t ncap = rs->cap ? rs->cap * 2 : 1024;
        struct rule *nv = realloc(rs->v, ncap * sizeof *nv);
        if (!nv) {
            die("out of memory%s", "");
        }
        rs->v = nv;
        rs->cap = ncap;
    }
    r = &rs->v[rs->n++];
    memset(r, 0, sizeof *r);
    r->rrule = icalproperty_get_rrule(rp);

    /* Resolves TZID against the enclosing VCALENDAR's VTIMEZONEs (and
     * libical's builtin zones for /freeassociation... style TZIDs). */
    r->dtstart = icalcomponent_get_dtstart(ev);
    r->zone = (icaltimezone *)r->dtstart.zone;
    tzp = icalproperty_get_first_parameter(dp, ICAL_TZID_PARAMETER);
    if (tzp && !r->zone && !r->dtstart.is_date) {
        const char *tzid = icalparameter_get_tzid(tzp);
        /* Fall back to libical's builtin (system zoneinfo) zone by name. */
        r->zone = tzid ? icaltimezone_get_builtin_timezone(tzid) : NULL;
        if (!r->zone) {
            rs->unresolved_tzid++;  /* treat as floating */
        }
        r->dtstart.zone = r->zone;
    }
    if (r->dtstart.is_date) {
        r->zone = NULL;         /* all-day: floating date */
        r->dtstart.zone = NULL;
    }

    /* FROM as a local time in DTSTART's zone, for icalrecur_iterator_set_start. */
    if (r->zone) {
        r->from = icaltime_from_timet_with_zone(from, 0, r->zone);
    } else {
        r->from = icaltime_from_timet_with_zone(from, 0, NULL);
        if (r->dtstart.is_date) {
            r->from.is_date = 1;
            r->from.hour = r->from.minute = r->from.second = 0;
        }
    }
    r->from.zone = r->dtstart.zone;
    r->can_set_start = HAVE_SET_START && r->rrule.count == 0 &&
                       icaltime_as_timet_with_zone(r->dtstart, r->zone) < from;
}

static void collect_rules(struct rules *rs, icalcomponent *c, time_t from)
{
    icalcompiter it;
    icalcomponent *sub;
    if (icalcomponent_isa(c) == ICAL_VEVENT_COMPONENT) {
        add_rule(rs, c, from);
    }
    for (it = icalcomponent_begin_component(c, ICAL_ANY_COMPONENT);
         (sub = icalcompiter_deref(&it)) != NULL; icalcompiter_next(&it)) {
        collect_rules(rs, sub, from);
    }
}

/* The timed loop. Returns the number of instances in [from, to). */
static long expand_all(const struct rules *rs, time_t from, time_t to, int use_set_start,
                       long *failed)
{
    long count = 0;
    size_t k;
    *failed = 0;
    for (k = 0; k < rs->n; k++) {
        const struct rule *r = &rs->v[k];
        struct icaltimetype next;
        icalrecur_iterator *it = icalrecur_iterator_new(r->rrule, r->dtstart);
        if (!it) {
            (*failed)++;
            continue;
        }
#if HAVE_SET_START
        if (use_set_start && r->can_set_start) {
            (void)icalrecur_iterator_set_start(it, r->from);
        }
#else
        (void)use_set_start;
#endif
        for (next = icalrecur_iterator_next(it); !icaltime_is_null_time(next);
             next = icalrecur_iterator_next(it)) {
            time_t t = icaltime_as_timet_with_zone(next, r->zone);
            if (t >= to) {
                break;
            }
            if (t >= from) {
                count++;
            }
        }
        icalrecur_iterator_free(it);
    }
    return count;
}

static int mode_recur(const char *path, int iters, time_t from, time_t to)
{
    size_t len = 0;
    char *buf = read_file(path, &len);
    icalcomponent *root = parse_or_die(buf, path);
    struct rules rs = { NULL, 0, 0, 0 };
    double *tv = calloc((size_t)iters, sizeof(double));
    const char *no_ss = getenv("ICAL_BENCH_NO_SET_START");
    int use_set_start = HAVE_SET_START && !(no_ss && *no_ss && strcmp(no_ss, "0") != 0);
    long instances = 0, failed = 0;
    int i;

    if (!tv) {
        die("out of memory%s", "");
    }
    collect_rules(&rs, root, from);

    for (i = -1; i < iters; i++) {
        double t0 = now_seconds(), t1;
        long n = expand_all(&rs, from, to, use_set_start, &failed);
        t1 = now_seconds();
        if (i < 0) {
            instances = n;
        } else {
            tv[i] = t1 - t0;
            if (n != instances) {
                fprintf(stderr, "%s: warning: instance count changed between runs (%ld vs %ld)\n",
                        prog, n, instances);
            }
            if (verbose) {
                fprintf(stderr, "recur[%d] %.6f s\n", i, tv[i]);
            }
        }
    }
    if (failed) {
        fprintf(stderr, "%s: note: icalrecur_iterator_new rejected %ld of %zu rules\n",
                prog, failed, rs.n);
    }
    if (rs.unresolved_tzid) {
        fprintf(stderr, "%s: note: %ld DTSTART TZIDs could not be resolved (treated as floating)\n",
                prog, rs.unresolved_tzid);
    }
    if (verbose) {
        fprintf(stderr, "set_start %s\n", use_set_start ? "used" : "not used");
    }

    printf("{\"tool\":\"libical\",\"mode\":\"recur\",\"rules\":%zu,\"instances\":%ld,"
           "\"iterations\":%d,\"seconds\":%.6f}\n",
           rs.n, instances, iters, median(tv, iters));

    free(rs.v);
    free(tv);
    icalcomponent_free(root);
    free(buf);
    return 0;
}

/* ----------------------------------------------------- whole-process modes */

static int mode_format(const char *path)
{
    size_t len = 0;
    char *buf = read_file(path, &len);
    icalcomponent *root = parse_or_die(buf, path);
    char *s = icalcomponent_as_ical_string_r(root);
    if (!s) {
        die("icalcomponent_as_ical_string_r returned NULL for '%s'", path);
    }
    fwrite(s, 1, strlen(s), stdout);
    icalmemory_free_buffer(s);
    icalcomponent_free(root);
    free(buf);
    return 0;
}

/* Writes a JSON string (the summary or UID) with the escapes JSON needs. */
static void put_json_string(const char *text)
{
    const unsigned char *c;
    putchar('"');
    for (c = (const unsigned char *)(text ? text : ""); *c; c++) {
        if (*c == '"' || *c == '\\') {
            putchar('\\');
            putchar(*c);
        } else if (*c < 0x20) {
            printf("\\u%04x", *c);
        } else {
            putchar(*c);
        }
    }
    putchar('"');
}

static void put_utc(time_t seconds)
{
    struct tm utc;
    char text[32];
    gmtime_r(&seconds, &utc);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    printf("\"%s\"", text);
}

static void print_instance(icalcomponent *event, struct icaltime_span *span, void *data)
{
    long *count = data;
    fputs("{\"uid\":", stdout);
    put_json_string(icalcomponent_get_uid(event));
    fputs(",\"start\":", stdout);
    put_utc(span->start);
    fputs(",\"end\":", stdout);
    put_utc(span->end);
    fputs(",\"summary\":", stdout);
    put_json_string(icalcomponent_get_summary(event));
    fputs("}\n", stdout);
    (*count)++;
}

static int mode_expand(const char *path, time_t from, time_t to)
{
    size_t len = 0;
    char *buf = read_file(path, &len);
    icalcomponent *root = parse_or_die(buf, path);
    struct icaltimetype start = icaltime_from_timet_with_zone(from, 0, icaltimezone_get_utc_timezone());
    struct icaltimetype end = icaltime_from_timet_with_zone(to, 0, icaltimezone_get_utc_timezone());
    long count = 0;
    icalcomponent *event;
    for (event = icalcomponent_get_first_component(root, ICAL_VEVENT_COMPONENT); event != NULL;
         event = icalcomponent_get_next_component(root, ICAL_VEVENT_COMPONENT)) {
        if (icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY)) {
            continue;
        }
        icalcomponent_foreach_recurrence(event, start, end, print_instance, &count);
    }
    fflush(stdout);
    fprintf(stderr, "%s: %ld instances\n", prog, count);
    icalcomponent_free(root);
    free(buf);
    return 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *v = getenv("ICAL_BENCH_VERBOSE");
    int iters;

    verbose = v && *v && strcmp(v, "0") != 0;
    if (argc < 2) {
        usage();
    }
    quiet_libical();

    if (strcmp(argv[1], "parse") == 0) {
        if (argc != 4) {
            usage();
        }
        iters = (int)parse_long(argv[3], "ITERATIONS", 1, 1000000);
        return mode_parse(argv[2], iters);
    }
    if (strcmp(argv[1], "format") == 0 && argc == 3) {
        return mode_format(argv[2]);
    }
    if (strcmp(argv[1], "expand") == 0 && argc == 5) {
        time_t from = (time_t)parse_long(argv[3], "FROM_UNIX", 0, LONG_MAX);
        time_t to = (time_t)parse_long(argv[4], "TO_UNIX", 0, LONG_MAX);
        return mode_expand(argv[2], from, to);
    }
    if (strcmp(argv[1], "recur") == 0) {
        time_t from, to;
        if (argc != 6) {
            usage();
        }
        iters = (int)parse_long(argv[3], "ITERATIONS", 1, 1000000);
        from = (time_t)parse_long(argv[4], "FROM_UNIX", 0, LONG_MAX);
        to = (time_t)parse_long(argv[5], "TO_UNIX", 0, LONG_MAX);
        if (to < from) {
            fprintf(stderr, "%s: TO_UNIX (%ld) must not be before FROM_UNIX (%ld)\n",
                    prog, (long)to, (long)from);
            return 1;
        }
        return mode_recur(argv[2], iters, from, to);
    }
    fprintf(stderr, "%s: unknown mode '%s'\n", prog, argv[1]);
    usage();
    return 1;
}
