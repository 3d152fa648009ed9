"""axag.model"""
