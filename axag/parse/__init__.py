"""axag.parse"""
