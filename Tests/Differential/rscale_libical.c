/* The RFC 7529 oracle for rscale_libical.py: libical (built with ICU, as Debian's is)
 * expanding recurrence rules. Reads lines "UID DTSTART RRULE COUNT" on stdin and writes
 * "UID date date ..." (the iterator's instances, at most COUNT), or "UID error MESSAGE"
 * when libical refuses the rule. */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char uid[256], start[64], rule[3500];
        int count;
        if (sscanf(line, "%255s %63s %3499s %d", uid, start, rule, &count) != 4) continue;
        icalerror_clear_errno();
        struct icalrecurrencetype recurrence = icalrecurrencetype_from_string(rule);
        icalrecur_iterator *iterator =
            icalerrno == ICAL_NO_ERROR ? icalrecur_iterator_new(recurrence, icaltime_from_string(start)) : NULL;
        if (!iterator) {
            printf("%s error %s\n", uid, icalerror_strerror(icalerrno));
            continue;
        }
        printf("%s", uid);
        struct icaltimetype next;
        for (int produced = 0; produced < count && !icaltime_is_null_time(next = icalrecur_iterator_next(iterator));
             produced++) {
            printf(" %s", icaltime_as_ical_string(next));
        }
        printf("\n");
        icalrecur_iterator_free(iterator);
    }
    return 0;
}
