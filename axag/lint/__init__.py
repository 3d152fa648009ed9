"""axag.lint"""
