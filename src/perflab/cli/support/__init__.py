"""What several verbs of the command line share: errors, exit codes and options (options.py), the
steps of run/compare/check (measuring.py), command contenders (command_options.py), profile views
(profile_views.py), and the profiles of programs (program_profile.py, native_profile.py)."""
