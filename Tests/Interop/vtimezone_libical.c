/* UTC offsets as libical computes them from a VTIMEZONE, for vtimezone_parsers.py, which
 * compiles this at test time:
 *
 *     gcc vtimezone_libical.c $(pkg-config --cflags --libs libical) -o vtimezone_libical
 *     ./vtimezone_libical calendar.ics < queries > offsets
 *
 * calendar.ics holds one VTIMEZONE and one VEVENT whose DTSTART names it. The zone is taken
 * from that DTSTART (icalcomponent_get_dtstart), so it is resolved as a client resolves it:
 * through the VCALENDAR's own VTIMEZONE, not libical's built-in zones; a DTSTART that
 * resolves elsewhere is an error. Each line of standard input is a query:
 *
 *     local YYYY MM DD hh mm ss   the offset of that wall-clock time in the zone (what a
 *                                 DTSTART;TZID= means; icaltime_as_timet_with_zone uses it)
 *     utc SECONDS                 the offset in force at that instant (Unix seconds)
 *
 * and each answer is one line with the offset in seconds. Exit status 1 when the calendar
 * cannot be read or its DTSTART does not resolve to its VTIMEZONE. */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (fread(text, 1, (size_t)size, file) != (size_t)size) {
        fclose(file);
        free(text);
        return NULL;
    }
    text[size] = '\0';
    fclose(file);
    return text;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s calendar.ics < queries\n", argv[0]);
        return 2;
    }
    char *text = read_file(argv[1]);
    icalcomponent *calendar = text ? icalparser_parse_string(text) : NULL;
    if (!calendar) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    icalcomponent *event = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT);
    icalproperty *dtstart = event ? icalcomponent_get_first_property(event, ICAL_DTSTART_PROPERTY) : NULL;
    icalparameter *tzid = dtstart ? icalproperty_get_first_parameter(dtstart, ICAL_TZID_PARAMETER) : NULL;
    if (!tzid) {
        fprintf(stderr, "no VEVENT with DTSTART;TZID=\n");
        return 1;
    }
    /* The VTIMEZONE of the calendar, and the zone the event's DTSTART was given: the same. */
    icaltimezone *own = icalcomponent_get_timezone(calendar, icalparameter_get_tzid(tzid));
    icaltimezone *zone = (icaltimezone *)icalcomponent_get_dtstart(event).zone;
    if (!own || zone != own) {
        fprintf(stderr, "DTSTART's TZID did not resolve to the calendar's VTIMEZONE\n");
        return 1;
    }

    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        int year, month, day, hour, minute, second, is_daylight = 0;
        long long seconds;
        int offset;
        if (sscanf(line, "local %d %d %d %d %d %d", &year, &month, &day, &hour, &minute, &second) == 6) {
            struct icaltimetype time = icaltime_null_time();
            time.year = year;
            time.month = month;
            time.day = day;
            time.hour = hour;
            time.minute = minute;
            time.second = second;
            time.is_date = 0;
            time.zone = zone;
            offset = icaltimezone_get_utc_offset(zone, &time, &is_daylight);
        } else if (sscanf(line, "utc %lld", &seconds) == 1) {
            struct icaltimetype time =
                icaltime_from_timet_with_zone((time_t)seconds, 0, icaltimezone_get_utc_timezone());
            offset = icaltimezone_get_utc_offset_of_utc_time(zone, &time, &is_daylight);
        } else {
            fprintf(stderr, "bad query: %s", line);
            return 2;
        }
        printf("%d\n", offset);
    }
    icalcomponent_free(calendar);
    free(text);
    return 0;
}
