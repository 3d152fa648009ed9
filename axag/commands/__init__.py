"""axag.commands"""
