from verify.commands import entry

entry()
