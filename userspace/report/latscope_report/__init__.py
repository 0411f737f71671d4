# SPDX-License-Identifier: GPL-2.0
"""latscope_report: the code of latscope-report and latscope-evt, private
to them (the scripts in userspace/ find it beside them in report/, or in
../lib/latscope when installed).

Dependencies point one way, each module using only those listed after it:

  report_main   latscope-report's command line: the files loaded, what is
                written, the exit status; its docstring is its manual
  evt_main      latscope-evt's command line
  profile       a survey's profile.md/.html, two surveys' compare.md/.html
  cost_output   cost.txt/cost.md, the cost rows' JSON, cost.png/.svg
  worst         worst.txt/worst.md, worst.png/.svg
  cost          cost suite files read, checked, merged into rows
  survey        a survey's directory read: plan, outcomes, board, setup
  plots         the latency runs' plots; matplotlib loaded by plotting()
  tables        table.txt/table.md, a run's JSON, sections of tables
  runs          latency runs read, checked, merged; percentiles
  trust         trust.txt/trust.md: setup verdict, EVT estimate
  evt           the extreme-value bound (numpy, SciPy; loaded lazily)
  page          a page of blocks as Markdown and as self-contained HTML
  files         every file written whole (written_whole())
  debian        the Debian package of a library that cannot be loaded
"""
