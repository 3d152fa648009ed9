"""Reports: the output formats, the html report and catalogue pages."""
