// Package cliff finds where a fleet stops recovering: the decisions of the
// cliff search, the point of no return and budget sizing, as pure
// functions of the results of the runs made so far. A driver (package
// cliff/drive) owns the runs: it asks Next which runs to make, makes them
// in virtual time, and asks again with their results, until Next asks for
// none; Summarize turns the results into the answer at any moment, so an
// interrupted search still says what it found.
//
// The cliff search varies one field of a scenario (a fault's length, the
// arrival rate, the client count, a budget's share: any field --set
// names) over a grid, or two, and for each strategy finds where it stops
// recovering within the run (its recovery_s is null, "never"). It
// bisects the grid seed by seed: for each seed (a repetition's seed of the
// scenario's root seed, as --runs draws them), the run at the grid's low
// end and at its high end, then halves the bracket between the last value
// that recovered and the first that collapsed until they are neighbours,
// about log2(grid) runs a seed where a sweep makes one per value. Each
// seed thus has its own edge; the boundary is their median, and its 95%
// confidence interval is the distribution-free one of a median (order
// statistics of the seeds' edges, each widened to its bracket): more
// seeds are added, in doublings, until the interval is as narrow as asked
// or the most seeds are reached. With two fields the second is traced:
// lines at its low end, middle and high end, and a line midway between
// two whose boundaries differ by more than the width asked, until the
// most lines are reached. Every run is a probe of a cell of the grid;
// the phase map colours each cell by what its probes did: every seed
// recovered, every seed collapsed, or some of each (uncertain).
//
// The point of no return (NoReturn) is, inside one collapsing run, the
// earliest instant after which collapse is 95% certain: the run's state
// at an instant, continued many times with fresh randomness and the
// trigger removed, collapses in a share p of them; the search bisects the
// instants for where p reaches 95% and reports the instants between the
// last where p is surely below it and the first where it is surely above
// (one-sided Clopper–Pearson bounds at 95%).
//
// Budget sizing is a cliff search over a budget's field with Spec.Cost:
// the most permissive setting at which every seed recovered, and the
// success of the requests that ended during the fault there and at the
// ends of the range: what staying out of collapse costs.
package cliff
