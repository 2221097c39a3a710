package tpch

import "time"

// Dates (clause 4.2.3): dbgen counts days from STARTDATE, 1992-01-01.
// Orders are dated from STARTDATE to ENDDATE - 151 days (1998-08-02);
// CURRENTDATE, 1995-06-17, decides l_returnflag and l_linestatus.
const (
	totalDays = 2557 // TOTDATE: 1992-01-01 .. 1998-12-31
	// orderDays is the number of possible order dates (O_ODATE_MAX -
	// O_ODATE_MIN + 1, with L_SDTE_MAX 121 and L_RDTE_MAX 30).
	orderDays = totalDays - (121 + 30) - 1 + 1
	// currentDay is CURRENTDATE, 1995-06-17, in days from 1992-01-01.
	currentDay = 366 + 365 + 365 + 167
	// pgDayOffset is 1992-01-01 in days from 2000-01-01, PostgreSQL's date
	// epoch.
	pgDayOffset = -(6*365 + 2*366)
)

var startDate = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)

// dayString is day d (from 1992-01-01) as YYYY-MM-DD.
func dayString(d int64) string { return startDate.AddDate(0, 0, int(d)).Format(time.DateOnly) }
