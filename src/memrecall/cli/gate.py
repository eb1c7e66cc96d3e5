"""placeholder"""
import click

@click.command()
def gate():
    """x"""
